package commands

import (
	"strings"
	"testing"
)

// BenchmarkCallArgs is what mcpc call does with its arguments before any
// I/O and once the tool's schema is known: parse the words and --args,
// then merge them with the schema's types.
func BenchmarkCallArgs(b *testing.B) {
	words := []string{"q=is:open label:bug", "limit=20", "draft=false", `labels:=["a","b"]`, `sort:={"by":"updated","desc":true}`, "state=open"}
	argsFlag := `{"q":"ignored","repo":"mcpc-dev/mcpc","page":1}`
	types := map[string][]string{"q": {"string"}, "limit": {"integer"}, "draft": {"boolean"},
		"labels": {"array"}, "sort": {"object"}, "state": {"string"}, "repo": {"string"}, "page": {"integer"}}
	for b.Loop() {
		pairs, err := parsePairs(words)
		if err != nil {
			b.Fatal(err)
		}
		base, err := readArgsFlag(argsFlag, strings.NewReader(""), "")
		if err != nil {
			b.Fatal(err)
		}
		if args := mergeArgs(base, pairs, types); len(args) != 8 {
			b.Fatalf("got %d arguments", len(args))
		}
	}
}
