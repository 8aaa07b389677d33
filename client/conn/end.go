package conn

import (
	"context"
	"time"
)

// How long an ending invocation waits for the server. After Ctrl-C the
// server sees the cancellation and mcpc is gone within a second; after a
// deadline (--timeout) the user is waiting, so out within about 200 ms.
const (
	interruptedCancelWait = 300 * time.Millisecond
	interruptedCloseWait  = 600 * time.Millisecond
	expiredCancelWait     = 50 * time.Millisecond
	expiredCloseWait      = 120 * time.Millisecond
)

// End closes the connection as the invocation that used it ends: interrupted
// (the user pressed Ctrl-C), past its deadline (ctx is done), or normally.
// The first two tell the server of the cancellation, then close within a
// bound; a normal end closes politely.
func (s *Conn) End(ctx context.Context, interrupted bool) {
	switch {
	case interrupted:
		s.AwaitCancellation(interruptedCancelWait)
		s.CloseWithin(interruptedCloseWait)
	case ctx.Err() != nil:
		s.AwaitCancellation(expiredCancelWait)
		s.CloseWithin(expiredCloseWait)
	default:
		s.Close()
	}
}
