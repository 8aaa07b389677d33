//go:build unix && !linux

package transport

import "syscall"

// BecomeSubreaper is Linux only; elsewhere a daemonizing grandchild of a
// server can outlive mcpc.
func BecomeSubreaper() error { return nil }

func serverAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func stopOrphans() {}

func killOrphans() {}
