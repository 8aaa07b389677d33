package transport

import (
	"context"
	"os"
	"time"
)

// socketCheck is how often a holder looks at its socket's file.
const socketCheck = time.Second

// WatchSocket returns a channel closed once the file at path is no
// longer the socket that was there when it was called: removed, or
// another in its place (a second holder's, started once this one could
// not be reached). A holder whose socket is gone serves no one: no
// invocation can reach it, nor a stop. It is polled: one lstat a second
// costs nothing, where a watch of the directory differs on every system.
func WatchSocket(ctx context.Context, path string) <-chan struct{} {
	gone := make(chan struct{})
	was, err := os.Lstat(path)
	if err != nil {
		close(gone)
		return gone
	}
	go func() {
		t := time.NewTicker(socketCheck)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if now, err := os.Lstat(path); err != nil || !os.SameFile(was, now) {
				close(gone)
				return
			}
		}
	}()
	return gone
}
