//go:build unix && !linux

package transport

import (
	"context"
	"syscall"
	"time"
)

// ProcessStart is Linux only (/proc); elsewhere a process is known by
// its pid alone.
func ProcessStart(int) string { return "" }

// ProcessExited is Linux only (/proc): elsewhere a signal's answer
// stands.
func ProcessExited(int) bool { return false }

// groupLive reports whether a process of group pgid answers a signal:
// without /proc its zombies count too.
func groupLive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

// ProcessRSS is Linux only (/proc).
func ProcessRSS(int) int64 { return 0 }

// ProcessStopped is Linux only (/proc): elsewhere a stopped process is not told apart.
func ProcessStopped(int) bool { return false }

// WatchProcess returns a channel closed once process pid has exited. It
// polls: without /proc a pid reused within the poll's interval is taken
// for the process watched.
func WatchProcess(ctx context.Context, pid int, _ string) <-chan struct{} {
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		for {
			if err := syscall.Kill(pid, 0); err != nil && err != syscall.EPERM {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
	return gone
}
