package conn

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// idleBound is a sending middleware that bounds each request by the idle
// watch. The handshake has the connect timeout instead. A
// subscriptions/listen is not bounded: the SDK sends it and returns, its
// stream open for as long as the subscription, silent for as long as
// nothing changes (and a bound's end would cancel it).
func (s *Conn) idleBound(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if s.idle.Bound() <= 0 || method == "initialize" || method == "server/discover" || method == "subscriptions/listen" || strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		wctx, stop := s.idle.Watch(ctx)
		defer stop()
		res, err := next(wctx, method, req)
		if err != nil && errors.Is(context.Cause(wctx), transport.ErrIdle) && ctx.Err() == nil {
			msg := fmt.Sprintf("%s did not answer %s: nothing arrived for %s", s.Label, method, s.idle.Bound())
			if id := s.wire.strayID(); id != "" {
				msg += fmt.Sprintf(" but a response to id %s, which mcpc never sent", id)
			}
			hint := "raise --idle-timeout (0: no bound), or bound the invocation with --timeout instead"
			if s.idle.Bound() == transport.DefaultIdleTimeout {
				hint = fmt.Sprintf("without --timeout mcpc gives up on a request after %s of silence (progress resets it); set --idle-timeout DURATION (0: no bound), or bound the invocation with --timeout", transport.DefaultIdleTimeout)
			}
			return nil, &fail.Error{Code: fail.Timeout, Err: err, Msg: msg, Hint: hint}
		}
		return res, err
	}
}
