package transport

import (
	"context"
	"errors"
	"sync"
	"time"
)

// DefaultIdleTimeout bounds a request the server neither answers nor
// reports progress on, when the user set no --timeout: a server that
// accepts a call and never replies must not hold a script for ever.
const DefaultIdleTimeout = 5 * time.Minute

// ErrIdle is the cause of a request context the idle bound ended.
var ErrIdle = errors.New("the server sent nothing for the idle bound")

// IdleWatch knows when the server last sent anything (any message resets
// it: a progress notification, a log message, a request) and whether mcpc
// is waiting for the user instead (then the bound does not run).
type IdleWatch struct {
	d      time.Duration // 0: no bound
	mu     sync.Mutex
	last   time.Time
	paused int
}

// NewIdleWatch bounds a request's silence by d (0: no bound).
func NewIdleWatch(d time.Duration) *IdleWatch { return &IdleWatch{d: d} }

// Bound is the idle bound, 0 when there is none.
func (iw *IdleWatch) Bound() time.Duration { return iw.d }

// Touch says the server just sent something.
func (iw *IdleWatch) Touch() {
	iw.mu.Lock()
	iw.last = time.Now()
	iw.mu.Unlock()
}

// Pause stops the bound until the returned function is called: the time
// a person takes to answer is not the server's.
func (iw *IdleWatch) Pause() func() {
	iw.mu.Lock()
	iw.paused++
	iw.mu.Unlock()
	return func() {
		iw.mu.Lock()
		iw.paused--
		iw.last = time.Now()
		iw.mu.Unlock()
	}
}

// Watch returns ctx, cancelled with cause ErrIdle once the server has sent
// nothing for the bound, and a function that ends the watch.
func (iw *IdleWatch) Watch(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	iw.Touch()
	done := make(chan struct{})
	go func() {
		t := time.NewTimer(iw.d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			iw.mu.Lock()
			left, paused := iw.d-time.Since(iw.last), iw.paused > 0
			iw.mu.Unlock()
			switch {
			case paused:
				t.Reset(iw.d)
			case left <= 0:
				cancel(ErrIdle)
				return
			default:
				t.Reset(left)
			}
		}
	}()
	return ctx, func() {
		close(done)
		cancel(nil)
	}
}
