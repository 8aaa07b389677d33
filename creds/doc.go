// Package creds keeps mcpc's credentials: the OS keyring store behind a small
// interface (Secret Service on Linux, Keychain on macOS, an in-memory fake for
// tests), the OAuth login flow with its loopback receiver, and token refresh
// serialized across processes by a file lock. It knows nothing of the command
// line; failures are *fail.Error values with codes and hints.
package creds
