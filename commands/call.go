package commands

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/mcpc-dev/mcpc/client/conn"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/tasks"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

// callOptions are call's flags and words.
type callOptions struct {
	server     string
	tool       string
	base       map[string]any
	pairs      []toolschema.Pair
	noValidate bool
	progress   bool   // --progress: show it even when stderr is not a terminal
	task       bool   // --task: run a tool that may run as a task as one
	detach     bool   // --detach: return once the server has accepted the task
	strict     bool   // --strict: a result that misses its outputSchema fails
	retry      int    // --retry: retries of a retryable failure (SEP-3313)
	idemKey    string // --idempotency-key: SEP-3182's key
	// structured: the output is JSON (or --query of it), not text.
	structured bool
	// batch is --batch's file (- for stdin), read from src: the calls
	// come from it.
	batch string
	src   toolschema.Source
}

func callCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "call",
		Usage:     "call a tool",
		ArgsUsage: "SERVER TOOL [key=value | key:=json ...]",
		Description: `Arguments come from --args (a JSON object, @FILE, or - for stdin) and from
key=value (a string; a number or boolean when the tool's schema says so) and
key:=json words; words win over --args. They are checked against the tool's
inputSchema before sending (--no-validate skips that). A result with
isError: true is printed and exits 1.

A value can come from a file: key=@PATH sends the file's text as a string
(exactly, never turned into a number), key:=@PATH parses it as JSON, and
key=@- reads standard input (once per invocation). Paths are relative to
the working directory; files are read like --args @FILE files (regular
files of at most 64 MiB). key=@@text sends the literal text @text. --batch
lines are JSON and take no @ values.

--batch prints a line for every call and exits with the highest status of
its calls: 0 when all succeeded, 1 when a tool reported an error, else the
status of the worst failure (its line is the --json error object); a
failure that loses the connection ends the batch at that line.

A tool the server runs as a task (execution.taskSupport "required", or
"optional" with --task or --detach; on a 2026-07-28 server, whenever the
server decides) is followed to its end: mcpc polls the task, shows its
status on a terminal, answers what it asks like any other question, and
prints the final result as a direct call would. Ctrl-C and --timeout cancel
the task. With --detach
(HTTP servers only) mcpc prints the task id and exits once the server has
accepted the task; 'mcpc task' reaches it later.`,
		Metadata: helptext.Examples(
			"string and number arguments (typed by the tool's schema)", "mcpc call everything get-sum a=2 b=3",
			"arguments as JSON, one part of the result", `mcpc call everything get-structured-content --args '{"location":"Chicago"}' -q structuredContent`,
			"a file's contents as an argument", "mcpc call everything echo message=@notes.txt",
			"a server that is not configured", "mcpc call --stdio 'npx -y @modelcontextprotocol/server-everything' echo message=hi",
			"several calls over one connection, one JSON result per line", `printf '%s\n' '{"tool":"echo","arguments":{"message":"a"}}' '{"tool":"get-sum","arguments":{"a":1,"b":2}}' | mcpc call everything --batch -`,
			"JSON into jq", "mcpc call everything echo message=hi | jq -r '.content[0].text'",
			"start a long task in CI, fetch its result later", "mcpc call --detach --text https://example.com/mcp simulate-research-query topic=go",
		),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "args", Aliases: []string{"a"}, Usage: "tool arguments as a JSON object, @FILE, or - (stdin)"},
			&cli.BoolFlag{Name: "no-validate", Usage: "do not check arguments against the tool's inputSchema"},
			noFilterFlag,
			&cli.StringFlag{Name: "batch", TakesFile: true, Usage: "make the calls listed in `FILE` (- for stdin), one JSON object per line (no @FILE values), over one connection"},
			&cli.BoolFlag{Name: "progress", Usage: "print the server's progress notifications on stderr even when it is not a terminal"},
			&cli.BoolFlag{Name: "task", Usage: "run the tool as a task when it allows one (execution.taskSupport \"optional\")"},
			&cli.BoolFlag{Name: "detach", Usage: "with a task on an HTTP server: print the task id and exit once the server has accepted it"},
			&cli.IntFlag{Name: "retry", Usage: "retry a failure the server marks retryable (SEP-3313) up to `N` times, for a tool annotated idempotentHint", Validator: checkRetry},
			&cli.StringFlag{Name: "idempotency-key", Usage: "send `KEY` as the call's idempotencyKey (SEP-3182), the same on every attempt (default with --retry: a random one)"},
		},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			o, err := callArgs(cmd, g, argSource(st.env.Stdin, g))
			switch {
			case err != nil:
				return err
			case o.batch != "":
				return runBatch(ctx, st.runIO(g), o)
			}
			return runCall(ctx, st.runIO(g), o)
		}),
	}
}

// callArgs reads call's flags and words into its options, the files they
// name read, before any connection.
func callArgs(cmd *cli.Command, g *globals, src toolschema.Source) (*callOptions, error) {
	return callWords(g, cmd.Args().Slice(), callFlags{args: cmd.String("args"), argsSet: cmd.IsSet("args"),
		text: cmd.Bool("text"), batch: cmd.String("batch"), noValidate: cmd.Bool("no-validate"),
		progress: cmd.Bool("progress"), task: cmd.Bool("task"), detach: cmd.Bool("detach"),
		retry: int(cmd.Int("retry")), idemKey: cmd.String("idempotency-key")}, src)
}

// maxRetry bounds --retry: each attempt is a call of the tool.
const maxRetry = 10

func checkRetry(n int) error {
	if n < 0 || n > maxRetry {
		return fmt.Errorf("want 0 to %d", maxRetry)
	}
	return nil
}

// callFlags are the flags of call that callWords reads with its words.
type callFlags struct {
	args                               string // --args
	argsSet, text                      bool   // --args and --text were given
	batch                              string // --batch
	noValidate, progress, task, detach bool
	retry                              int    // --retry
	idemKey                            string // --idempotency-key
}

// callWords reads SERVER TOOL [key=value | key:=json ...] (or, with
// --batch, SERVER alone) with call's flags f.
func callWords(g *globals, words []string, f callFlags, src toolschema.Source) (*callOptions, error) {
	server, rest, err := g.adhoc.Target(words)
	if err != nil {
		return nil, err
	}
	o := &callOptions{server: server, noValidate: f.noValidate, progress: f.progress,
		task: f.task, detach: f.detach, strict: g.strict, structured: g.structured(), retry: f.retry, idemKey: f.idemKey}
	if o.batch, o.src = f.batch, src; o.batch != "" {
		return o, checkBatch(o, rest, f.text, f.argsSet)
	}
	if len(rest) == 0 {
		return nil, usagef("list the tools with: mcpc list SERVER", "missing TOOL")
	}
	o.tool = rest[0]
	o.base, o.pairs, err = src.Read(rest[1:], f.args)
	return o, err
}

// argSource is where call's and prompt's arguments are read from: stdin,
// the working directory, and what of the flags reads stdin.
func argSource(stdin io.Reader, g *globals) toolschema.Source {
	return toolschema.Source{Stdin: stdin, Cwd: g.cwd, StdinBy: g.input.StdinBy}
}

// runCall calls the tool and prints its result, or with --detach the
// task it runs as.
func runCall(ctx context.Context, rio runIO, o *callOptions) error {
	srv, err := rio.reach(ctx, o.server, reachOptions{refuse: func(e *config.Entry) error {
		if o.detach && e.Server.URL == "" {
			// Refused before a stdio server is started for nothing.
			return conn.ErrDetachStdio
		}
		return nil
	}, listTools: true, tools: []string{o.tool}})
	if err != nil {
		return err
	}
	defer srv.close()
	tool, run, err := client.CallTool(ctx, srv.sess, srv.tools, client.ToolCall{
		Name: o.tool,
		Args: func(t *mcp.Tool) map[string]any {
			return toolschema.Merge(o.base, o.pairs, toolschema.PropertyTypes(t))
		},
		NoValidate: o.noValidate, Notes: rio.stderr,
		Progress: func() func() { return rio.progress(o.progress) },
		Tasks:    tasks.Options{Ask: o.task, Detach: o.detach, Status: rio.taskStatus},
		Retry:    o.retry, IdempotencyKey: o.idemKey,
	})
	if err != nil && (run == nil || run.Result == nil) {
		return err
	}
	if run.Record != nil {
		return printDetached(rio, o.structured, srv.entry, srv.sess.label(), run)
	}
	err = printToolResult(ctx, rio, o.strict, tool, run.Result, err)
	if d := client.DenialOf(run.Result); d != nil && errors.Is(err, client.ErrToolError) {
		return d.Failure(srv.entry, srv.sess.label(), o.tool)
	}
	return err
}

// printToolResult prints a call's final result and returns the exit
// status's error: taskErr (a task that failed with a result), the
// outputSchema check (a failure under strict), or the tool's isError.
func printToolResult(ctx context.Context, rio runIO, strict bool, tool *mcp.Tool, raw []byte, taskErr error) error {
	verdict := client.CallVerdict(ctx, rio.stderr, strict, tool, raw, taskErr)
	if ctx.Err() != nil {
		return context.Cause(ctx) // the invocation ended during the check
	}
	if err := rio.printRaw(format.KindCallTool, raw); err != nil {
		return err
	}
	return verdict
}
