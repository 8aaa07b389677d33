package conn

import (
	"context"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressToken gives every tools/call a progress token, so that a server
// that can report progress does; what mcpc shows of it is up to the
// caller's ConnectOptions.Progress.
func progressToken(next mcp.MethodHandler) mcp.MethodHandler {
	var seq atomic.Int64
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.CallToolParams); ok && method == "tools/call" && p.GetProgressToken() == nil {
			p.SetProgressToken(seq.Add(1))
		}
		return next(ctx, method, req)
	}
}
