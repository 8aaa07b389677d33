package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/format"
)

// runDiff needs only its options and a runIO: two snapshot files are
// compared with no state, no globals and no server.
func TestRunDiffFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, tools string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(`{"mcpcSnapshot": 1, "tools": [`+tools+`]}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tool := func(name, title string) string {
		return `{"name": "` + name + `", "title": "` + title + `", "inputSchema": {"type": "object"}}`
	}
	write("old.json", tool("a", "A")+","+tool("b", "B"))
	write("titled.json", tool("a", "A2")+","+tool("b", "B"))
	write("gone.json", tool("a", "A"))
	for _, c := range []struct {
		name           string
		new            string
		strict, json   bool
		stdout, stderr string
		drift          bool
	}{
		{name: "same", new: "old.json", stderr: "mcpc: note: no changes\n"},
		{name: "same, JSON", new: "old.json", json: true, stdout: "[]"},
		{name: "a title changed", new: "titled.json", stdout: "compatible: tool a: title changed\n"},
		{name: "a title changed, JSON", new: "titled.json", json: true,
			stdout: `[{"kind":"compatible","object":"tool a","path":"","change":"title-changed","old":"A","new":"A2"}]`},
		{name: "a title changed, strict", new: "titled.json", strict: true, stdout: "compatible: tool a: title changed\n", drift: true},
		{name: "a tool removed", new: "gone.json", stdout: "breaking: tool b: removed\n", drift: true},
	} {
		var stdout, stderr strings.Builder
		rio := runIO{
			stderr: &stderr,
			write:  func(b []byte) error { stdout.Write(b); return nil },
			printRaw: func(_ format.Kind, b []byte) error {
				var c bytes.Buffer
				err := json.Compact(&c, b)
				stdout.Write(c.Bytes())
				return err
			},
			open: func(context.Context, string) (connection, func(), error) {
				t.Fatal("runDiff of two files opened a server")
				return nil, nil, nil
			},
		}
		o := diffOptions{old: diffSide{file: "old.json"}, new: diffSide{file: c.new}, cwd: dir, strict: c.strict, structured: c.json}
		err := runDiff(context.Background(), rio, o)
		if errors.Is(err, errDrift) != c.drift || err != nil && !errors.Is(err, errDrift) {
			t.Errorf("%s: error %v, want drift %v", c.name, err, c.drift)
		}
		if stdout.String() != c.stdout || stderr.String() != c.stderr {
			t.Errorf("%s:\nstdout %q, want %q\nstderr %q, want %q", c.name, stdout.String(), c.stdout, stderr.String(), c.stderr)
		}
	}
}
