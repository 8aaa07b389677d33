package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

// readBatch reads every line of a --batch file (- for stdin) before
// anything is started (toolschema.ReadCalls): a typo on line 40 must not
// leave 39 calls done. A read that blocks (a silent pipe) does not
// outlive ctx: --timeout, Ctrl-C and SIGTERM end it, though the read
// itself cannot be interrupted.
func readBatch(ctx context.Context, src string, stdin io.Reader, cwd string) ([]toolschema.Call, error) {
	type read struct {
		calls []toolschema.Call
		err   error
	}
	done := make(chan read, 1)
	go func() {
		calls, err := toolschema.ReadCalls(ctx, src, stdin, cwd)
		done <- read{calls, err}
	}()
	select {
	case r := <-done:
		return r.calls, r.err
	case <-ctx.Done():
		return nil, ctxErr(ctx, fmt.Errorf("reading --batch %s: %w", batchName(src), ctx.Err()))
	}
}

func batchName(src string) string {
	if src == "-" {
		return "stdin"
	}
	return src
}

// runBatch makes every call over one connection and prints one line of
// JSON per call: the result, bounded like any result, or the error object
// that --json prints for a failure. A call that fails does not stop the
// others, unless the connection itself is gone. The exit status is the
// highest of the calls'.
func runBatch(ctx context.Context, rio runIO, o *callOptions, calls []toolschema.Call) error {
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
		res, err := func() (json.RawMessage, error) {
			// A line's arguments are JSON: no word to type by the schema.
			args := func(*mcp.Tool) map[string]any {
				if c.Arguments == nil {
					return map[string]any{}
				}
				return c.Arguments
			}
			// A tool that runs as a task is followed to its end here too.
			tool, run, err := callTool(ctx, rio, sess, tools, toolCall{name: c.Tool, args: args, noValidate: o.noValidate})
			if run == nil || run.Result == nil {
				return nil, err
			}
			var strictErr error
			if err == nil {
				strictErr = checkOutput(ctx, rio.stderr, o.strict, tool, run.Result)
			}
			return run.Result, resultVerdict(run.Result, err, strictErr)
		}()
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

// batchLine renders one result, as the server sent it, as JSON on one
// line, within --max-bytes.
func (st *state) batchLine(g *globals, b json.RawMessage) ([]byte, error) {
	var out bytes.Buffer
	opts := format.Options{
		Mode:     format.ModeJSON,
		Kind:     format.KindCallTool,
		Query:    g.query,
		MaxBytes: g.maxBytes,
		MaxLines: g.maxLines,
		Overflow: &format.Overflow{Dir: g.dirs.OverflowDir()},
	}
	if err := format.Write(&out, st.env.Stderr, b, opts); err != nil {
		return nil, err
	}
	var line bytes.Buffer
	if err := json.Compact(&line, out.Bytes()); err != nil {
		return nil, err
	}
	return line.Bytes(), nil
}

// batchOptions are call's options with --batch: the file (- for stdin),
// and what of the command line must be refused with it.
type batchOptions struct {
	call *callOptions
	src  string
	rest []string // words after SERVER: none allowed
	text bool     // --text given
	args bool     // --args given
}

// batchFile checks a --batch command line, reads the whole file (from
// src's directory or stdin), then runs it.
func batchFile(ctx context.Context, rio runIO, src argSource, b batchOptions) error {
	if err := checkBatch(b); err != nil {
		return err
	}
	calls, err := readBatch(ctx, b.src, src.stdin, src.cwd)
	if err != nil {
		return err
	}
	return runBatch(ctx, rio, b.call, calls)
}

// checkBatch refuses what of a --batch command line the file replaces.
func checkBatch(b batchOptions) error {
	switch {
	case b.call.detach || b.call.task:
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
