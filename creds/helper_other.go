//go:build !unix

package creds

import "os/exec"

// helperGroup leaves the helper as exec starts it: stopping it kills the
// process itself.
func helperGroup(*exec.Cmd) {}
