package testserver

import "syscall"

// daemonAttr starts a process in a console process group of its own: the
// nearest Windows has to leaving a session. It stays in its parent's Job
// object, which is what a client relies on there.
func daemonAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}
