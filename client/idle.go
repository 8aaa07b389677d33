package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// DefaultIdleTimeout bounds a request the server neither answers nor
// reports progress on, when the user set no --timeout: a server that
// accepts a call and never replies must not hold a script for ever.
const DefaultIdleTimeout = 5 * time.Minute

var errIdle = errors.New("the server sent nothing for the idle bound")

// idleWatch knows when the server last sent anything (any message resets
// it: a progress notification, a log message, a request) and whether mcpc
// is waiting for the user instead (then the bound does not run).
type idleWatch struct {
	d      time.Duration // 0: no bound
	mu     sync.Mutex
	last   time.Time
	paused int
}

func (iw *idleWatch) touch() {
	iw.mu.Lock()
	iw.last = time.Now()
	iw.mu.Unlock()
}

// pause stops the bound until the returned function is called: the time
// a person takes to answer is not the server's.
func (iw *idleWatch) pause() func() {
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

// watch returns ctx, cancelled with cause errIdle once the server has sent
// nothing for the bound, and a function that ends the watch.
func (iw *idleWatch) watch(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	iw.touch()
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
				cancel(errIdle)
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

// idleBound is a sending middleware that bounds each request by the idle
// watch. The handshake has the connect timeout instead.
func (s *Session) idleBound(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if s.idle.d <= 0 || method == "initialize" || method == "server/discover" || strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		wctx, stop := s.idle.watch(ctx)
		defer stop()
		res, err := next(wctx, method, req)
		if err != nil && errors.Is(context.Cause(wctx), errIdle) && ctx.Err() == nil {
			msg := fmt.Sprintf("%s did not answer %s: nothing arrived for %s", s.Label, method, s.idle.d)
			if id := s.wire.strayID(); id != "" {
				msg += fmt.Sprintf(" but a response to id %s, which mcpc never sent", id)
			}
			hint := "raise --idle-timeout (0: no bound), or bound the invocation with --timeout instead"
			if s.idle.d == DefaultIdleTimeout {
				hint = fmt.Sprintf("without --timeout mcpc gives up on a request after %s of silence (progress resets it); set --idle-timeout DURATION (0: no bound), or bound the invocation with --timeout", DefaultIdleTimeout)
			}
			return nil, &fail.Error{Code: fail.Timeout, Err: err, Msg: msg, Hint: hint}
		}
		return res, err
	}
}
