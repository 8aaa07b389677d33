package toolschema

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchTool has the kind of inputSchema real servers send: several typed
// properties, required ones, bounds and a nested object.
func benchTool(b *testing.B) *mcp.Tool {
	b.Helper()
	var schema map[string]any
	err := json.Unmarshal([]byte(`{"type":"object","required":["q","limit"],"properties":{
		"q":{"type":"string","minLength":1},
		"limit":{"type":"integer","minimum":1,"maximum":100},
		"state":{"type":"string","enum":["open","closed","all"]},
		"labels":{"type":"array","items":{"type":"string"}},
		"draft":{"type":"boolean"},
		"sort":{"type":"object","properties":{"by":{"type":"string"},"desc":{"type":"boolean"}}}}}`), &schema)
	if err != nil {
		b.Fatal(err)
	}
	return &mcp.Tool{Name: "search", InputSchema: schema}
}

// BenchmarkValidateArgs checks arguments against the tool's inputSchema, as
// every mcpc call does before sending.
func BenchmarkValidateArgs(b *testing.B) {
	tool := benchTool(b)
	args := map[string]any{"q": "bug", "limit": json.Number("20"), "state": "open",
		"labels": []any{"a", "b"}, "sort": map[string]any{"by": "updated", "desc": true}}
	for b.Loop() {
		if skipped, err := ValidateArgs(context.Background(), tool, args); err != nil || skipped != "" {
			b.Fatal(skipped, err)
		}
	}
}

func BenchmarkPropertyTypes(b *testing.B) {
	tool := benchTool(b)
	for b.Loop() {
		if len(PropertyTypes(tool)) != 6 {
			b.Fatal("wrong property count")
		}
	}
}

// BenchmarkCallArgs is what mcpc call does with its arguments before any
// I/O and once the tool's schema is known: parse the words and --args,
// then merge them with the schema's types.
func BenchmarkCallArgs(b *testing.B) {
	words := []string{"q=is:open label:bug", "limit=20", "draft=false", `labels:=["a","b"]`, `sort:={"by":"updated","desc":true}`, "state=open"}
	argsFlag := `{"q":"ignored","repo":"mcpc-dev/mcpc","page":1}`
	types := map[string][]string{"q": {"string"}, "limit": {"integer"}, "draft": {"boolean"},
		"labels": {"array"}, "sort": {"object"}, "state": {"string"}, "repo": {"string"}, "page": {"integer"}}
	for b.Loop() {
		pairs, err := ParsePairs(words)
		if err != nil {
			b.Fatal(err)
		}
		base, err := ReadArgs(argsFlag, strings.NewReader(""), "")
		if err != nil {
			b.Fatal(err)
		}
		if args := Merge(base, pairs, types); len(args) != 8 {
			b.Fatalf("got %d arguments", len(args))
		}
	}
}
