package client

import (
	"context"
	"sync"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
)

// EachServer reaches every entry that is not nil, at most parallel at a
// time, and returns when all are done: the fan-out of a command that asks
// several servers at once (mcpc list --check, mcpc grep). open connects
// to one entry through the caller's open path and returns the session,
// how to close it, and how long visit may then take with it; visit gets
// the session and when its connect began, or, for an entry that could not
// be reached (or whose turn came after ctx ended), the failure in err. A
// server's connect is bounded by the open path, what visit asks of it by
// open's bound, so one slow server costs at most those two.
func EachServer[S any](ctx context.Context, entries []*config.Entry, parallel int,
	open func(ctx context.Context, e *config.Entry) (sess S, closeFn func(), bound time.Duration, err error),
	visit func(ctx context.Context, i int, start time.Time, sess S, err error)) {
	sem := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	for i, e := range entries {
		if e == nil {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			var none S
			start := time.Now()
			if ctx.Err() != nil {
				visit(ctx, i, start, none, ctx.Err())
				return
			}
			sess, closeFn, bound, err := open(ctx, e)
			if err != nil {
				visit(ctx, i, start, none, err)
				return
			}
			defer closeFn()
			vctx, cancel := context.WithTimeout(ctx, bound)
			defer cancel()
			visit(vctx, i, start, sess, nil)
		})
	}
	wg.Wait()
}
