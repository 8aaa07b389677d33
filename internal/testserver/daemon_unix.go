//go:build unix

package testserver

import "syscall"

// daemonAttr starts a process in a session (and process group) of its own.
func daemonAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
