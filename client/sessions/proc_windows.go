package sessions

import (
	"os"
	"syscall"
)

// holderAttr detaches a session's holder from the console and its
// Ctrl-C.
func holderAttr() *syscall.SysProcAttr {
	const detachedProcess = 0x00000008
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess}
}

// stopHolder ends a holder that never reported (Windows has no SIGTERM;
// its server's Job object ends with it).
func stopHolder(p *os.Process) { p.Kill() }

// killHolder kills a holder that neither answers nor ends: its
// server's Job object ends with it.
func killHolder(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
		p.Release()
	}
}

// processAlive reports whether pid runs: finding it opens it.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
