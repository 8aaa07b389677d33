package testserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// completeValues answers completion/complete (--completions) for the greet
// prompt's name and the item template's id: the values that start with
// what is typed. The names narrow by the context's "greeting", so a test
// can see the arguments already given reach the server.
func completeValues(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
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
	out := []string{}
	for _, v := range values {
		if strings.HasPrefix(v, p.Argument.Value) {
			out = append(out, v)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: out, Total: len(out)}}, nil
}
