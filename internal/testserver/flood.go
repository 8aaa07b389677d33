package testserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Kinds of --notify flood.
const (
	notifyLog      = "log"
	notifyProgress = "progress"
)

// notifyFlood writes n notifications (log messages, or progress on the
// call's token) straight to stdout before the SDK answers the call: the
// chatty server of the throughput benchmarks, at the speed of one buffered
// writer rather than the SDK's per-message encode.
func (c *faultConn) notifyFlood(req *jsonrpc.Request) {
	n, kind := c.t.opts.notify, c.t.opts.notifyKind
	token := json.RawMessage(`"flood"`)
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(req.Params, &p) == nil && len(p.Meta.Token) > 0 {
		token = p.Meta.Token
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	w := bufio.NewWriterSize(c.t.out, 1<<16)
	for i := range n {
		if kind == notifyProgress {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"total":%d,"message":"step %d of the flood"}}`+"\n", token, i+1, n, i+1)
			continue
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","logger":"flood","data":"message %09d of the flood, padded to look like a debug line of a busy server: ......................................................"}}`+"\n", i)
	}
	w.Flush()
}

// addManyTools adds n generated tools (--tools N), each with a small
// schema, for the huge-list benchmarks and scripts.
func addManyTools(s *mcp.Server, n int) {
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"query": {Type: "string", Description: "what to look for"},
		"limit": {Type: "integer", Description: "at most this many"},
	}, Required: []string{"query"}}
	for i := range n {
		name := "tool-" + strconv.Itoa(i)
		s.AddTool(&mcp.Tool{Name: name, Description: "Generated tool number " + strconv.Itoa(i) + " of a huge list.", InputSchema: schema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
			})
	}
}
