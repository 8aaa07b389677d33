package transport

import (
	"context"
	"os"
)

// ProcessStart is Linux only: on Windows the handle WatchProcess opens
// holds the process, so its pid cannot be reused while watched.
func ProcessStart(int) string { return "" }

// ProcessRSS is Linux only (/proc).
func ProcessRSS(int) int64 { return 0 }

// ProcessStopped is Linux only (/proc).
func ProcessStopped(int) bool { return false }

// WatchProcess returns a channel closed once process pid has exited:
// finding it opens a handle to it, which its exit signals.
func WatchProcess(ctx context.Context, pid int, _ string) <-chan struct{} {
	gone := make(chan struct{})
	p, err := os.FindProcess(pid)
	if err != nil {
		close(gone)
		return gone
	}
	go func() {
		defer close(gone)
		p.Wait()
	}()
	return gone
}
