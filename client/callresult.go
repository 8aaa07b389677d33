package client

import (
	"context"
	"encoding/json"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/tasks"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

// ErrToolError means the tool reported isError (tasks.ErrToolError, the
// one sentinel for a call run as a task or not).
var ErrToolError = tasks.ErrToolError

// ResultVerdict is the exit status's error of a call's result: a task
// that failed with a result, then the outputSchema check under --strict,
// then the tool's isError.
func ResultVerdict(raw []byte, taskErr, strictErr error) error {
	switch {
	case taskErr != nil:
		return taskErr
	case strictErr != nil:
		return strictErr
	case rawmsg.View(raw).Get("isError").Bool():
		return ErrToolError
	}
	return nil
}

// BatchCall makes one call of a --batch on call's path, its arguments as
// the line gave them (JSON: no word to type by the schema), a tool that
// runs as a task followed to its end. It returns the result (nil when
// there is none) and its verdict.
func BatchCall(ctx context.Context, s ToolCaller, tools []*mcp.Tool, c toolschema.Call, f BatchFlags, notes io.Writer) (json.RawMessage, error) {
	args := func(*mcp.Tool) map[string]any {
		if c.Arguments == nil {
			return map[string]any{}
		}
		return c.Arguments
	}
	tool, run, err := CallTool(ctx, s, tools, ToolCall{Name: c.Tool, Args: args, NoValidate: f.NoValidate, Notes: notes, Retry: f.Retry})
	if run == nil || run.Result == nil {
		return nil, err
	}
	return run.Result, CallVerdict(ctx, notes, f.Strict, tool, run.Result, err)
}

// BatchFlags are the flags of a --batch that apply to each of its calls.
type BatchFlags struct {
	NoValidate, Strict bool
	Retry              int // --retry
}

// CallVerdict finishes a call that has a result, the one way for mcpc
// call and each --batch line: the result is checked against the tool's
// outputSchema (a warning on notes, or under strict a failure), a failed
// task's result too, and the exit status's error is ResultVerdict's. The
// end of ctx during the check is its cause.
func CallVerdict(ctx context.Context, notes io.Writer, strict bool, tool *mcp.Tool, raw []byte, taskErr error) error {
	strictErr := toolschema.CheckOutput(ctx, notes, strict, tool, raw)
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return ResultVerdict(raw, taskErr, strictErr)
}

// EndsBatch says a call's failure ends its --batch: the connection is
// gone, or the invocation's bound passed. (A --strict mismatch is a
// protocol failure of that call only.)
func EndsBatch(ctx context.Context, err error) bool {
	if err != nil && ctx.Err() != nil {
		return true
	}
	switch fail.CodeOf(err) {
	case fail.Connection, fail.ServerExited, fail.Timeout, fail.ConnectTimeout, fail.Interrupted:
		return true
	}
	return false
}

// BatchStatus gathers the failures of a --batch's calls, each printed on
// its line: the exit status is the worst.
type BatchStatus struct{ worst *fail.Error }

// Add counts a call's failure.
func (b *BatchStatus) Add(e *fail.Error) {
	if b.worst == nil || e.Code.Exit() > b.worst.Code.Exit() {
		b.worst = e
	}
}

// Worst is the worst failure so far, nil for none.
func (b *BatchStatus) Worst() *fail.Error { return b.worst }

// Err is the batch's error once every call was made: none, the tool's
// isError, or the worst failure behind a message that says where each
// is.
func (b *BatchStatus) Err() error {
	switch {
	case b.worst == nil:
		return nil
	case b.worst.Code == fail.ToolError:
		return ErrToolError
	}
	return &fail.Error{Code: b.worst.Code, Msg: "some calls failed (see their lines on stdout)", Hint: b.worst.Hint, Err: b.worst}
}
