package commands

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
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

// BenchmarkCommandLine is what every invocation pays to urfave/cli before
// its action runs: build the command tree with its flags, parse a line
// carrying global flags. The action here prints a short help topic.
func BenchmarkCommandLine(b *testing.B) {
	args := []string{"mcpc", "--json", "--max-bytes", "4096", "--timeout", "30s", "help", "exit-codes"}
	for b.Loop() {
		var out strings.Builder
		env := Env{
			Stdin: strings.NewReader(""), Stdout: &out, Stderr: io.Discard,
			Getenv:  func(string) string { return "" },
			Environ: func() []string { return nil },
			Getwd:   func() (string, error) { return "/", nil },
			Now:     time.Now,
		}
		if code := Main(context.Background(), args, env); code != 0 || out.Len() == 0 {
			b.Fatalf("exit %d, %d bytes", code, out.Len())
		}
	}
}
