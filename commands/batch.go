package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/internal/fail"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

// batchOptions are call's options with --batch: the file (- for stdin,
// else relative to cwd), and what of the command line must be refused
// with it.
type batchOptions struct {
	src   string
	rest  []string // words after SERVER: none allowed
	text  bool     // --text given
	args  bool     // --args given
	stdin io.Reader
	cwd   string
}

// checkBatch refuses what of a --batch command line the file replaces.
func checkBatch(o *callOptions) error {
	switch b := o.batch; {
	case o.detach || o.task:
		return usagef("run the calls one by one to detach them", "--batch cannot be combined with --task or --detach")
	case len(b.rest) > 0:
		return usagef("the tools and their arguments come from the --batch file", "unexpected argument %q with --batch", b.rest[0])
	case b.text:
		return usagef("", "--batch prints JSON Lines; --text cannot be used with it")
	case b.args:
		return usagef("put each call's arguments in its line of the --batch file", "--args cannot be used with --batch")
	}
	return nil
}

// runBatch reads the whole --batch file, then makes every call over one
// connection and prints one line of JSON per call: the result, bounded
// like any result, or the error object that --json prints for a failure.
// A call that fails does not stop the others, unless the connection
// itself is gone. The exit status is the highest of the calls'.
func runBatch(ctx context.Context, rio runIO, o *callOptions) error {
	calls, err := toolschema.ReadCalls(ctx, o.batch.src, o.batch.stdin, o.batch.cwd)
	if err != nil {
		return err
	}
	entry, err := rio.resolve(o.server)
	if err != nil {
		return err
	}
	var names []string
	for _, c := range calls {
		names = append(names, c.Tool)
	}
	sess, tools, closeFn, err := openTools(ctx, rio, entry, names...)
	if err != nil {
		return err
	}
	defer closeFn()
	var worst *fail.Error
	for _, c := range calls {
		res, err := batchCall(ctx, rio, sess, tools, o, c)
		var line []byte
		if res != nil {
			var perr error
			if line, perr = rio.line(res); perr != nil {
				// The same --query is applied to every result: one it
				// fails on ends the batch rather than throw away the
				// results of every call after it.
				return outputError(perr)
			}
		}
		if err != nil {
			e := asFailure(ctxErr(ctx, err))
			if worst == nil || e.Code.Exit() > worst.Code.Exit() {
				worst = e
			}
			if res == nil {
				// stdout is not written through stderr's redaction.
				line = []byte(redaction.FromContext(ctx).String(string(errorObject(e))))
			}
		}
		if _, werr := fmt.Fprintf(rio.stdout, "%s\n", line); werr != nil {
			// No call more: Main reports a failed write, and a reader
			// that went away (… | head) is no failure.
			return nil
		}
		// The connection is gone, or the invocation's bound: stop. (A
		// --strict mismatch is a protocol failure of that call only.)
		if err != nil && ctx.Err() != nil {
			return worst
		}
		switch fail.CodeOf(err) {
		case fail.Connection, fail.ServerExited, fail.Timeout, fail.ConnectTimeout, fail.Interrupted:
			return worst
		}
	}
	if worst == nil {
		return nil
	}
	if worst.Code == fail.ToolError {
		return errToolError
	}
	// Each failure was printed on its line; the status says the worst.
	return &fail.Error{Code: worst.Code, Msg: "some calls failed (see their lines on stdout)", Hint: worst.Hint, Err: worst}
}

// batchCall makes one call of a batch on call's path, and returns its
// result (nil when there is none) and its verdict.
func batchCall(ctx context.Context, rio runIO, sess session, tools []*mcp.Tool, o *callOptions, c toolschema.Call) (json.RawMessage, error) {
	// A line's arguments are JSON: no word to type by the schema.
	args := func(*mcp.Tool) map[string]any {
		if c.Arguments == nil {
			return map[string]any{}
		}
		return c.Arguments
	}
	// A tool that runs as a task is followed to its end here too.
	tool, run, err := client.CallTool(ctx, sess, tools, client.ToolCall{Name: c.Tool, Args: args, NoValidate: o.noValidate, Notes: rio.stderr})
	if run == nil || run.Result == nil {
		return nil, err
	}
	var strictErr error
	if err == nil {
		strictErr = toolschema.CheckOutput(ctx, rio.stderr, o.strict, tool, run.Result)
	}
	return run.Result, resultVerdict(run.Result, err, strictErr)
}
