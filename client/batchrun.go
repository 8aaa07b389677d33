package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fail/report"
	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

// BatchRun is a --batch's calls made over one connection, each on call's
// path (BatchCall), with a line of JSON printed for each: the result,
// rendered by Line, or the error object --json prints for a failure. A
// call that fails does not stop the others, unless the connection itself
// is gone (EndsBatch). The exit status is the highest of the calls'.
type BatchRun struct {
	Session    ToolCaller
	Tools      []*mcp.Tool // listed before the first call (BatchTools)
	NoValidate bool
	Strict     bool
	// Retry is --retry, for each call (ToolCall.Retry): each gets a key
	// of its own.
	Retry int
	// Notes takes what a call notes (a schema mcpc cannot use, a result
	// that misses its outputSchema).
	Notes io.Writer
	// Line renders a call's result as its line (mcpc's --query and
	// --max-bytes). Its error ends the batch and is returned as it is:
	// the same --query is applied to every result, so one it fails on
	// ends the batch rather than throw away the results after it.
	Line func(json.RawMessage) ([]byte, error)
	// Out takes the lines. Once a write fails no call more is made, and
	// the batch ends with no error: the caller reports a failed write,
	// and a reader that went away (… | head) is no failure.
	Out io.Writer
	// Interrupt is the context cause that means the user interrupted
	// (fail.FromContext).
	Interrupt error
}

// BatchTools are the tools calls name, in their order, for listing
// before the first call.
func BatchTools(calls []toolschema.Call) []string {
	var names []string
	for _, c := range calls {
		names = append(names, c.Tool)
	}
	return names
}

// Run makes calls in order and prints a line for each.
func (b BatchRun) Run(ctx context.Context, calls []toolschema.Call) error {
	var status BatchStatus
	for _, c := range calls {
		res, err := BatchCall(ctx, b.Session, b.Tools, c, BatchFlags{NoValidate: b.NoValidate, Strict: b.Strict, Retry: b.Retry}, b.Notes)
		var line []byte
		if res != nil {
			var lerr error
			if line, lerr = b.Line(res); lerr != nil {
				return lerr
			}
		}
		if err != nil {
			e := fail.From(fail.FromContext(ctx, err, b.Interrupt))
			status.Add(e)
			if res == nil {
				// stdout is not written through stderr's redaction.
				line = []byte(redact.FromContext(ctx).String(string(report.Object(e))))
			}
		}
		if _, werr := fmt.Fprintf(b.Out, "%s\n", line); werr != nil {
			return nil
		}
		if EndsBatch(ctx, err) {
			return status.Worst()
		}
	}
	return status.Err()
}
