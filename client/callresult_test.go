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

// oneTool answers every call of its tool with result, and records the
// arguments.
type oneTool struct {
	result string
	err    error // what the run returns with its result (a failed task's)
	args   map[string]any
}

func (o *oneTool) FindTool(tools []*mcp.Tool, name string) (*mcp.Tool, error) {
	for _, t := range tools {
		if t.Name == name {
			return t, nil
		}
	}
	return nil, &fail.Error{Code: fail.Rejected, Msg: "no tool " + name}
}

func (o *oneTool) RunTool(_ context.Context, _ string, args map[string]any, _ tasks.Options) (*tasks.ToolRun, error) {
	o.args = args
	return &tasks.ToolRun{Result: json.RawMessage(o.result)}, o.err
}

// A --batch line's call: no arguments are an empty object, a result that
// misses its outputSchema warns (or under strict is a protocol failure
// with the result kept), isError is the tool's error, a missing tool is
// the call's failure with no result.
func TestBatchCall(t *testing.T) {
	tool := &mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"},
		OutputSchema: map[string]any{"type": "object", "required": []any{"n"}}}
	for _, c := range []struct {
		result, tool string
		strict       bool
		code         fail.Code
		warn         string
	}{
		{`{"content":[],"structuredContent":{"n":1}}`, "t", false, "", ""},
		{`{"content":[],"structuredContent":{}}`, "t", false, "", "mcpc: warning: structuredContent does not match"},
		{`{"content":[],"structuredContent":{}}`, "t", true, fail.Protocol, ""},
		{`{"content":[],"isError":true}`, "t", false, fail.ToolError, ""},
		{`{}`, "u", false, fail.Rejected, ""},
	} {
		s := &oneTool{result: c.result}
		var notes strings.Builder
		res, err := BatchCall(context.Background(), s, []*mcp.Tool{tool}, toolschema.Call{Tool: c.tool}, BatchFlags{Strict: c.strict}, &notes)
		if fail.CodeOf(err) != c.code || !strings.HasPrefix(notes.String(), c.warn) || (c.warn == "") != (notes.Len() == 0) {
			t.Errorf("%s %s strict=%v: %v (code %v), notes %q", c.tool, c.result, c.strict, err, fail.CodeOf(err), notes.String())
		}
		if (c.tool == "t") != (string(res) == c.result) {
			t.Errorf("%s: result %s", c.tool, res)
		}
		if c.tool == "t" && (s.args == nil || len(s.args) != 0) {
			t.Errorf("arguments %#v, want an empty object", s.args)
		}
	}
}

// A task that failed with a result that misses its outputSchema: mcpc
// call and a --batch line finish it the one way (CallVerdict), a warning
// and the task's failure as the verdict. The batch's line did not warn.
func TestFailedTaskResultChecked(t *testing.T) {
	tool := &mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"},
		OutputSchema: map[string]any{"type": "object", "required": []any{"n"}}}
	failed := &fail.Error{Code: fail.TaskFailed, Msg: "task t-1 failed"}
	s := &oneTool{result: `{"content":[],"structuredContent":{}}`, err: failed}
	var notes strings.Builder
	_, err := BatchCall(context.Background(), s, []*mcp.Tool{tool}, toolschema.Call{Tool: "t"}, BatchFlags{}, &notes)
	if !errors.Is(err, failed) || !strings.HasPrefix(notes.String(), "mcpc: warning: structuredContent does not match the outputSchema of tool \"t\"") {
		t.Errorf("--batch: %v, notes %q", err, notes.String())
	}
	var direct strings.Builder
	if err := CallVerdict(context.Background(), &direct, false, tool, json.RawMessage(s.result), failed); !errors.Is(err, failed) || direct.String() != notes.String() {
		t.Errorf("mcpc call: %v, notes %q; --batch's %q", err, direct.String(), notes.String())
	}
}

// A batch's status is the worst of its calls'; isError alone stays the
// tool's error, and the connection gone ends the batch.
func TestBatchStatus(t *testing.T) {
	var b BatchStatus
	if b.Err() != nil || b.Worst() != nil {
		t.Fatalf("no failure: %v", b.Err())
	}
	b.Add(ErrToolError)
	if b.Err() != ErrToolError {
		t.Errorf("isError only: %v", b.Err())
	}
	rejected := &fail.Error{Code: fail.Rejected, Msg: "no tool x", Hint: "list them"}
	b.Add(rejected)
	b.Add(ErrToolError)
	var e *fail.Error
	if err := b.Err(); !errors.As(err, &e) || e.Code != fail.Rejected || e.Msg != "some calls failed (see their lines on stdout)" || e.Hint != "list them" || b.Worst() != rejected {
		t.Errorf("worst: %v", err)
	}
	ctx := context.Background()
	if EndsBatch(ctx, rejected) || EndsBatch(ctx, nil) || !EndsBatch(ctx, &fail.Error{Code: fail.Connection}) {
		t.Errorf("EndsBatch: a rejected call ends the batch, or a lost connection does not")
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if !EndsBatch(done, rejected) {
		t.Errorf("EndsBatch: a failure once the invocation ended does not end the batch")
	}
}
