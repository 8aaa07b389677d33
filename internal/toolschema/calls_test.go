package toolschema

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// ReadCalls reads one call a line, relative to cwd or from stdin, and
// refuses a bad line by its number, before returning any call.
func TestReadCalls(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "calls.jsonl"), []byte(`{"tool":"echo","arguments":{"m":"a"}}`+"\n\n"+`{"tool":"add"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	calls, err := ReadCalls(context.Background(), "calls.jsonl", nil, dir)
	if err != nil || len(calls) != 2 || calls[0].Tool != "echo" || calls[0].Arguments["m"] != "a" || calls[1].Tool != "add" || calls[1].Arguments != nil {
		t.Fatalf("ReadCalls = %+v, %v", calls, err)
	}
	for in, want := range map[string]string{
		`{"tool":"a"}` + "\n" + `{"tool":"b","args":{}}`: `stdin:2: json: unknown field "args"`,
		`{"tool":"a"} {"tool":"b"}`:                      "stdin:1: more than one JSON value",
		`{"arguments":{}}`:                               `stdin:1: no "tool"`,
	} {
		_, err := ReadCalls(context.Background(), "-", strings.NewReader(in), dir)
		if fail.CodeOf(err) != fail.Usage || err.Error() != want {
			t.Errorf("%s: %v (code %v), want %s", in, err, fail.CodeOf(err), want)
		}
	}
	_, err = ReadCalls(context.Background(), "missing.jsonl", nil, dir)
	if fail.CodeOf(err) != fail.Usage || !strings.HasPrefix(err.Error(), "cannot read --batch file: ") {
		t.Errorf("a missing file: %v", err)
	}
}

// endless repeats s without end.
type endless string

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e[i%len(e)]
	}
	return len(p) - len(p)%len(e), nil
}

// Endless input ends at a bound, in bounded memory: endless calls at
// MaxCalls, an endless line at MaxCallLine.
func TestReadCallsEndless(t *testing.T) {
	for _, c := range []struct {
		in   io.Reader
		want string
	}{
		{endless(`{"tool":"a"}` + "\n"), "--batch stdin holds more than 100000 calls"},
		{endless(" "), "stdin:1: the line is longer than 16MiB"},
	} {
		var err error
		n := memtest.Allocated(func() { _, err = ReadCalls(context.Background(), "-", c.in, "") })
		if fail.CodeOf(err) != fail.Usage || err.Error() != c.want {
			t.Errorf("%v (code %v), want %s", err, fail.CodeOf(err), c.want)
		}
		if n > 200<<20 {
			t.Errorf("%s: allocated %d MiB", c.want, n>>20)
		}
	}
}

// A --batch - whose writer stays silent does not outlive the invocation:
// ReadCalls returns ctx's error, naming the input, once ctx ends.
func TestReadCallsSilentPipe(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ReadCalls(ctx, "-", r, "")
	if !errors.Is(err, context.Canceled) || err.Error() != "reading --batch stdin: context canceled" {
		t.Fatalf("ReadCalls on a silent pipe = %v", err)
	}
}
