//go:build unix

package sessions

import (
	"os"
	"syscall"

	"github.com/mcpc-dev/mcpc/client/transport"
)

// holderAttr detaches a session's holder: a session of its own (no
// terminal, its own process group), so that neither the terminal's
// Ctrl-C nor the end of the shell's job reaches it.
func holderAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// stopHolder asks a holder that never reported to end: it stops its
// server on the way out.
func stopHolder(p *os.Process) { p.Signal(syscall.SIGTERM) }

// killHolder kills a holder that neither answers nor ends: its server
// ends with it (parent-death signal).
func killHolder(pid int) { syscall.Kill(pid, syscall.SIGKILL) }

// processAlive reports whether pid runs. A holder that exited stays a
// zombie until whatever adopted it reaps it (an init that never does, in
// some containers): on Linux that counts as gone.
func processAlive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == nil && !transport.ProcessExited(pid)
}
