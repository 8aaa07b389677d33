//go:build unix

package creds

import (
	"os/exec"
	"syscall"
)

// helperGroup starts the helper in a process group of its own, so that
// stopping it (its time passed, its output over the bound) stops what it
// started too: a shell line's sleep or pipeline would outlive the shell.
// A helper that exits leaves its children alone (an agent it started).
func helperGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
