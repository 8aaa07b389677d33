package commands

import (
	"context"
	"encoding/json"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/format"
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
	case o.idemKey != "":
		return usagef("with --retry, each call of the batch gets a key of its own", "--idempotency-key names one call: it cannot be used with --batch")
	}
	return nil
}

// runBatch reads the whole --batch file, then makes every call over one
// connection and prints one line of JSON per call (client.BatchRun).
func runBatch(ctx context.Context, rio runIO, o *callOptions) error {
	calls, err := toolschema.ReadCalls(ctx, o.batch, o.src.Stdin, o.src.Cwd)
	if err != nil {
		return err
	}
	srv, err := rio.reach(ctx, o.server, reachOptions{listTools: true, tools: client.BatchTools(calls)})
	if err != nil {
		return err
	}
	defer srv.close()
	return client.BatchRun{Session: srv.sess, Tools: srv.tools, NoValidate: o.noValidate, Strict: o.strict, Retry: o.retry,
		Notes: rio.stderr, Out: rio.stdout, Interrupt: errInterrupted,
		Line: func(doc json.RawMessage) ([]byte, error) {
			line, err := rio.line(doc)
			if err != nil {
				return nil, format.QueryUsage(err)
			}
			return line, nil
		},
	}.Run(ctx, calls)
}
