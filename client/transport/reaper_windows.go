package transport

import "syscall"

// BecomeSubreaper has nothing to do on Windows: a process that leaves its
// parent is still in the server's Job object (see tree), which is what
// teardown stops.
func BecomeSubreaper() error { return nil }

// serverAttr starts a server in a console process group of its own, so the
// terminal's Ctrl-C reaches mcpc only (as the process group does on unix)
// and terminate can send the group CTRL_BREAK.
func serverAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// stopOrphans and killOrphans have no orphans to find: the job holds them.
func stopOrphans() {}

func killOrphans() {}
