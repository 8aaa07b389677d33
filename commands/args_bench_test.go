package commands

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

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
