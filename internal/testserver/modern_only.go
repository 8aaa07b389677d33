package testserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// refuseInitialize makes a --modern-only stdio server refuse initialize,
// as its usage says: the Go SDK refuses a 2025 revision over HTTP (a
// 400) itself, but answers initialize over stdio.
func refuseInitialize(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "initialize" {
			return next(ctx, method, req)
		}
		data, _ := json.Marshal(map[string][]string{"supported": {modernVersion}})
		return nil, &jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: "unsupported protocol version: this server speaks " + modernVersion + " only", Data: data}
	}
}
