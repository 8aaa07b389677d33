package testserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// completeFrom answers completion/complete (--completions) for the greet
// prompt's name and the item template's id: the values that start with
// what is typed. The names narrow by the context's "greeting", so a test
// can see the arguments already given reach the server. With given
// (--completion-values FILE: a JSON object of lists of strings) the names
// are given[greeting] instead: the hostile values a test puts on a
// shell's command line, one at a time.
func completeFrom(given map[string][]string) func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	return func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		p := req.Params
		if given != nil && p.Ref.Type == "ref/prompt" && p.Argument.Name == "name" {
			greeting := ""
			if p.Context != nil {
				greeting = p.Context.Arguments["greeting"]
			}
			return prefixed(given[greeting], p.Argument.Value), nil
		}
		return builtinValues(p), nil
	}
}

// readCompletionValues reads --completion-values FILE.
func readCompletionValues(path string) (map[string][]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var given map[string][]string
	if err := json.Unmarshal(data, &given); err != nil {
		return nil, fmt.Errorf("--completion-values %s: %v", path, err)
	}
	return given, nil
}

func builtinValues(p *mcp.CompleteParams) *mcp.CompleteResult {
	var values []string
	switch {
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == "greet" && p.Argument.Name == "name":
		values = []string{"Ada", "Alan", "Grace"}
		if p.Context != nil && p.Context.Arguments["greeting"] == "formal" {
			values = []string{"Dr. Ada", "Dr. Alan", "Dr. Grace"}
		}
	case p.Ref.Type == "ref/resource" && p.Ref.URI == itemTemplate && p.Argument.Name == "id":
		values = []string{"1", "2", "3", "10"}
	}
	return prefixed(values, p.Argument.Value)
}

// prefixed is the answer of the values that start with what is typed.
func prefixed(values []string, typed string) *mcp.CompleteResult {
	out := []string{}
	for _, v := range values {
		if strings.HasPrefix(v, typed) {
			out = append(out, v)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: out, Total: len(out)}}
}

// completionFlood answers a completion/complete (--completion-flood
// BYTES) below the SDK with one message of about BYTES: values of 100
// bytes each, written as they are made, so that the server stays small
// while the client gets a huge answer (the spec allows 100 values).
func (c *faultConn) completionFlood(req *jsonrpc.Request) {
	id, _ := json.Marshal(req.ID.Raw())
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	w := bufio.NewWriterSize(c.t.out, 1<<16)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"completion":{"values":[`, id)
	n := max(c.t.opts.completionFlood/100, 1)
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `"value-%09d-%s"`, i, strings.Repeat("x", 83))
	}
	fmt.Fprintf(w, `],"total":%d}}}`+"\n", n)
	w.Flush()
}
