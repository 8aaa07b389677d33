package testserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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

// manyTools is the JSON of n generated tools (--tools N), each with a
// small schema, spliced into the tools/list result below the SDK: adding
// them to the SDK one by one resolves each schema (80 µs a tool), which
// made a 200,000-tool server take 16 s to start.
func manyTools(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"name":"tool-%d","description":"Generated tool %d of a huge list.","inputSchema":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}},`, i, i)
	}
	return b.Bytes()
}

// deepTool is the JSON of the deep tool (--deep-schema N), followed by a
// comma: its inputSchema nests n levels of array items, each described
// (about 85 bytes a level), spliced in as the generated tools are, as the
// SDK would take quadratic time to resolve it. None when n is 0.
func deepTool(n int) []byte {
	if n == 0 {
		return nil
	}
	var b bytes.Buffer
	b.WriteString(`{"name":"deep","description":"A tool whose input schema nests deep.","inputSchema":`)
	for range n {
		fmt.Fprintf(&b, `{"type":"array","description":"one level of a schema nested %d levels deep","items":`, n)
	}
	b.WriteString(`{"type":"string"}`)
	b.WriteString(strings.Repeat("}", n))
	b.WriteString(`},`)
	return b.Bytes()
}

// withManyTools splices the generated tools in front of a tools/list
// result's own.
func (c *faultConn) withManyTools(r *jsonrpc.Response) *jsonrpc.Response {
	i := bytes.Index(r.Result, []byte(`"tools":[`))
	if i < 0 || len(c.t.opts.generated) == 0 {
		return r
	}
	i += len(`"tools":[`)
	cp := *r
	cp.Result = slices.Concat(r.Result[:i], c.t.opts.generated, r.Result[i:])
	return &cp
}

// callGenerated answers a call of a generated tool with its name.
func (c *faultConn) callGenerated(req *jsonrpc.Request) bool {
	var p struct {
		Name string `json:"name"`
	}
	if c.t.opts.manyTools == 0 || json.Unmarshal(req.Params, &p) != nil || !strings.HasPrefix(p.Name, "tool-") {
		return false
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(p.Name, "tool-")); err != nil || n < 0 || n >= c.t.opts.manyTools {
		return false
	}
	id, _ := json.Marshal(req.ID.Raw())
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	fmt.Fprintf(c.t.out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}],"resultType":"complete"}}`+"\n", id, p.Name)
	return true
}
