package commands

import (
	"context"
	"fmt"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fail/report"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

// checkBatch refuses what of a --batch command line the file replaces:
// rest are the words after SERVER, text and args say --text and --args
// were given.
func checkBatch(o *callOptions, rest []string, text, args bool) error {
	switch {
	case o.detach || o.task:
		return usagef("run the calls one by one to detach them", "--batch cannot be combined with --task or --detach")
	case len(rest) > 0:
		return usagef("the tools and their arguments come from the --batch file", "unexpected argument %q with --batch", rest[0])
	case text:
		return usagef("", "--batch prints JSON Lines; --text cannot be used with it")
	case args:
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
	calls, err := toolschema.ReadCalls(ctx, o.batch, o.src.Stdin, o.src.Cwd)
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
	sess, tools, closeFn, err := client.OpenTools(ctx, rio.openEntry, entry, names...)
	if err != nil {
		return err
	}
	defer closeFn()
	var status client.BatchStatus
	for _, c := range calls {
		res, err := client.BatchCall(ctx, sess, tools, c, o.noValidate, o.strict, rio.stderr)
		var line []byte
		if res != nil {
			var perr error
			if line, perr = rio.line(res); perr != nil {
				// The same --query is applied to every result: one it
				// fails on ends the batch rather than throw away the
				// results of every call after it.
				return format.QueryUsage(perr)
			}
		}
		if err != nil {
			e := fail.From(ctxErr(ctx, err))
			status.Add(e)
			if res == nil {
				// stdout is not written through stderr's redaction.
				line = []byte(redaction.FromContext(ctx).String(string(report.Object(e))))
			}
		}
		if _, werr := fmt.Fprintf(rio.stdout, "%s\n", line); werr != nil {
			// No call more: Main reports a failed write, and a reader
			// that went away (… | head) is no failure.
			return nil
		}
		if client.EndsBatch(ctx, err) {
			return status.Worst()
		}
	}
	return status.Err()
}
