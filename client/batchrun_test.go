package client

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/tasks"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

// toolTable answers each tool's call from its row, and records the calls.
type toolTable struct {
	results map[string]string
	errs    map[string]error
	called  []string
}

func (f *toolTable) FindTool(tools []*mcp.Tool, name string) (*mcp.Tool, error) {
	return (&oneTool{}).FindTool(tools, name)
}

func (f *toolTable) RunTool(_ context.Context, tool string, _ map[string]any, _ tasks.Options) (*tasks.ToolRun, error) {
	f.called = append(f.called, tool)
	if err := f.errs[tool]; err != nil {
		return nil, err
	}
	return &tasks.ToolRun{Result: json.RawMessage(f.results[tool])}, nil
}

// failingWriter takes n writes, then fails every one.
type failingWriter struct {
	strings.Builder
	n int
}

func (w *failingWriter) Write(b []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("broken pipe")
	}
	w.n--
	return w.Builder.Write(b)
}

// A --batch over one session: a line per call, a failure's error object
// on its line with the others still made, a lost connection ending the
// batch there, a Line failure returned as it is, and a reader gone
// stopping the calls without an error.
func TestBatchRun(t *testing.T) {
	ok := `{"content":[],"isError":false}`
	calls := func(names ...string) []toolschema.Call {
		var cs []toolschema.Call
		for _, n := range names {
			cs = append(cs, toolschema.Call{Tool: n})
		}
		return cs
	}
	badQuery := errors.New("bad query")
	for _, tc := range []struct {
		name     string
		calls    []toolschema.Call
		errs     map[string]error
		line     error
		writes   int
		out      string
		err      string
		code     fail.Code
		called   []string
		lineSeen int
	}{
		{name: "every call, a line each", calls: calls("a", "b"), writes: 9, out: ok + "\n" + ok + "\n", called: []string{"a", "b"}},
		{name: "a failing call: its object, then the next", calls: calls("bad", "a"), writes: 9,
			errs: map[string]error{"bad": fail.New(fail.Rejected, "check it", "rejected")},
			out:  `{"error":{"code":"rejected","exit":7,"hint":"check it","message":"rejected"}}` + "\n" + ok + "\n",
			err:  "some calls failed (see their lines on stdout)", code: fail.Rejected, called: []string{"bad", "a"}},
		{name: "an unknown tool: refused on its line, never called", calls: calls("nope", "a"), writes: 9,
			out: `{"error":{"code":"rejected","exit":7,"hint":"","message":"no tool nope"}}` + "\n" + ok + "\n",
			err: "some calls failed (see their lines on stdout)", code: fail.Rejected, called: []string{"a"}},
		{name: "the connection lost: the batch ends there", calls: calls("gone", "a"), writes: 9,
			errs: map[string]error{"gone": fail.New(fail.Connection, "", "connection lost")},
			out:  `{"error":{"code":"connection","exit":5,"hint":"","message":"connection lost"}}` + "\n",
			err:  "connection lost", code: fail.Connection, called: []string{"gone"}},
		{name: "a --query that fails ends the batch with its error", calls: calls("a", "b"), writes: 9, line: badQuery,
			err: "bad query", called: []string{"a"}},
		{name: "the reader gone: no call more, no error", calls: calls("a", "b"), writes: 0, called: []string{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &toolTable{results: map[string]string{"a": ok, "b": ok}, errs: tc.errs}
			out := &failingWriter{n: tc.writes}
			err := BatchRun{Session: f, Tools: []*mcp.Tool{{Name: "a"}, {Name: "b"}, {Name: "bad"}, {Name: "gone"}},
				NoValidate: true, Notes: &strings.Builder{}, Out: out,
				Line: func(doc json.RawMessage) ([]byte, error) { return doc, tc.line },
			}.Run(context.Background(), tc.calls)
			if got := errString(err); got != tc.err || tc.code != "" && fail.CodeOf(err) != tc.code {
				t.Errorf("error %q (%v), want %q (%v)", got, fail.CodeOf(err), tc.err, tc.code)
			}
			if out.String() != tc.out {
				t.Errorf("printed\n%s\nwant\n%s", out.String(), tc.out)
			}
			if strings.Join(f.called, ",") != strings.Join(tc.called, ",") {
				t.Errorf("called %q, want %q", f.called, tc.called)
			}
		})
	}
}

// BatchTools names the tools of the calls in their order, for the one
// listing before the first call.
func TestBatchTools(t *testing.T) {
	got := BatchTools([]toolschema.Call{{Tool: "b"}, {Tool: "a"}, {Tool: "b"}})
	if strings.Join(got, ",") != "b,a,b" {
		t.Errorf("BatchTools = %q", got)
	}
	if BatchTools(nil) != nil {
		t.Error("no call: tools listed")
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
