package serve

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrIdle is why serve ended on --idle: no client asked for that long.
var ErrIdle = errors.New("no client request within --idle")

// Idle ends serve after d without a client's message (0: never): each
// message touches it. A request that runs longer than d does not count
// as idle while it runs; the bound counts from its start, as a holder's
// does not, because serve cannot tell a slow answer from a silent client.
type Idle struct {
	mu     sync.Mutex
	d      time.Duration
	timer  *time.Timer
	cancel context.CancelCauseFunc
}

// NewIdle is ctx, ended with ErrIdle once d passes without a touch.
func NewIdle(ctx context.Context, d time.Duration) (context.Context, *Idle) {
	ctx, cancel := context.WithCancelCause(ctx)
	i := &Idle{d: d, cancel: cancel}
	if d > 0 {
		i.timer = time.AfterFunc(d, func() { cancel(ErrIdle) })
	}
	return ctx, i
}

// Touch says a client spoke: the bound starts again.
func (i *Idle) Touch() {
	if i == nil || i.timer == nil {
		return
	}
	i.mu.Lock()
	i.timer.Reset(i.d)
	i.mu.Unlock()
}

// Stop lets the bound go.
func (i *Idle) Stop() {
	if i != nil && i.timer != nil {
		i.timer.Stop()
	}
	if i != nil {
		i.cancel(nil)
	}
}
