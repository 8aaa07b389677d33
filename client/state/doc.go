// Package state is what mcpc keeps between invocations, in files: the era
// verdict of each server and the results servers marked cacheable (Memo),
// the records of detached tasks (Tasks), and the per-user secret that keys
// credentials in those files' names (Memo.CredentialKey). Callers name a
// server by a key string they derive from its configuration; this package
// knows nothing of configuration or sessions, and imports neither client
// nor client/config.
//
// Every file is private to the user, written atomically by fsx with no
// symlink followed (a link in a private directory was planted), and read
// bounded; a task record is changed under a file lock, re-read under it. Losing a file costs a probe or a request, never an invocation,
// so most failures here are dropped rather than reported.
package state
