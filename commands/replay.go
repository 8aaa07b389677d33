package commands

import (
	"cmp"
	"context"
	"errors"
	"io"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/serve"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/helptext"
)

// replayDescription is mcpc replay --help's text.
const replayDescription = `Serves the recording FILE (made with --record, mcpc help record) as an MCP
server on stdin and stdout (or Streamable HTTP with --http, under serve's
rules: loopback, a bearer token, Origin checked), so that what a server
answered on a laptop answers a CI job without the server, its network or
its credentials: mcpc --record r.jsonl call github ... once, then
mcpc call --stdio 'mcpc replay r.jsonl' ... gives the same output.

Each request the client sends is matched with a request of the recording:
the same method and the same params, but for what says nothing of what is
asked: the JSON-RPC id, _meta.progressToken, trace context in _meta
(traceparent, tracestate, baggage) and the client's version in its
clientInfo (initialize's, and the 2026-07-28 _meta one), so a CI job's
newer mcpc still matches. Everything else counts: the protocol revision,
the capabilities, a tool's arguments, a list's cursor. With --order match
(the default) a request takes the first recorded one that matches and has
not answered yet, in the file's order; one that matches only recorded
requests already answered (a client that polls tasks/get more often than
the recorded one did) takes the last of them again. With --order strict
it must match the next recorded request (or repeat the one just
answered).

A matched request is answered as the recording says its server answered:
the notifications (progress, with the client's progress token in place of
the recorded one; logs) and the questions (elicitation/create,
sampling/createMessage, roots/list) that came before the answer, in
order, then the answer. A question is sent with an id of replay's, and
replay waits for the client's answer before it goes on; an answer that is
not the recorded one fails the request. Both eras are served as recorded:
a 2026-07-28 server's server/discover and per-request _meta, a 2025
server's initialize; the client's era choice must land on what the
recording holds. A server/discover to a recording of a 2025 server is
answered "method not found", as that server answered it; so is a ping,
answered {} when the recording has none.

A request with no match is answered with a JSON-RPC error, mcpc call's
exit 7: "method not found" (-32601) when the recording has no request of
its method, else "invalid params" (-32602) naming the closest recorded
request (its line, and the first field it differs in). Replay itself goes
on, quiet on stdio (an mcpc that runs it as its --stdio server passes its
stderr on); with --strict it exits 1 when its client goes (or on SIGTERM)
saying how many requests had no answer.

The recording is read whole before anything is served, each line under
--max-message (and room for the line around its message): a file that is
not a recording, of a format version this mcpc does not read, or with a
line that cannot be read is an error that names the line (exit 2).`

func replayCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:        "replay",
		Usage:       "serve a recording (from --record) as an MCP server: each request answered as the recorded server answered it",
		ArgsUsage:   "FILE",
		Description: replayDescription,
		Flags: append(serveHTTPFlags(),
			&cli.StringFlag{Name: "order", Value: "match", Usage: "how a request finds its recorded answer: `match` (any recorded request that matches) or strict (the next one)"},
			&cli.BoolFlag{Name: "strict", Usage: "exit 1 at the end when a request had no answer in the recording"},
		),
		Metadata: helptext.Examples(
			"record a call once", "mcpc call --record r.jsonl github search_issues q=bug",
			"replay it in CI: the same output, no server", "mcpc call --stdio 'mcpc replay --strict r.jsonl' search_issues q=bug",
			"the replay over Streamable HTTP on a free loopback port", "mcpc replay r.jsonl --http 127.0.0.1:0",
		),
		Action: func(ctx context.Context, cmd *cli.Command) error { return replayAction(ctx, st, cmd) },
	}
}

// replayAction reads the flags and the recording, serves it, and with
// --strict fails when a request had no answer.
func replayAction(ctx context.Context, st *state, cmd *cli.Command) error {
	g, err := st.readGlobals(cmd)
	if err != nil {
		return err
	}
	if err := justOne(cmd.Args().Slice(), "make one with: mcpc --record FILE call ...", "recording FILE"); err != nil {
		return err
	}
	order := cmd.String("order")
	if order != "match" && order != "strict" {
		return usagef("give --order match or --order strict", "--order %q is not an order replay knows", order)
	}
	l, err := serveListen(cmd, st, g)
	if err != nil {
		return err
	}
	// --timeout bounds the replay as it bounds any invocation: a hang
	// guard for the CI job that runs it.
	ctx, cancel := g.withTimeout(ctx)
	defer cancel()
	p, f, err := readReplay(ctx, g, cmd.Args().First())
	if err != nil {
		return err
	}
	defer f.Close()
	p.Strict = order == "strict"
	if err := serveBackend(ctx, st, p, "replay", l); err != nil {
		return err
	}
	n := p.Unmatched()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && (n == 0 || !cmd.Bool("strict")) {
		return ctxErr(ctx, ctx.Err())
	}
	if n > 0 && cmd.Bool("strict") {
		what := "requests"
		if n == 1 {
			what = "request"
		}
		e := fail.New(fail.Unmatched, "record them again; the error each was answered with names the closest recorded request",
			"%d %s had no answer in %s (--strict)", n, what, p.Name)
		// A SIGTERM is how an HTTP replay ends: the report is this, not
		// "interrupted" (which it wraps, so main keeps it).
		e.Err = context.Cause(ctx)
		return e
	}
	return nil
}

// readReplay reads the recording file, which stays open while the
// replay serves: its messages are read from it again as they are sent.
func readReplay(ctx context.Context, g *globals, file string) (*serve.Replay, *os.File, error) {
	f, err := fsx.OpenRegular(fsx.Under(g.cwd, file))
	if err != nil {
		return nil, nil, fail.New(fail.Usage, "", "cannot read recording %s: %v", file, fsx.Reason(err))
	}
	p, err := serve.ReadReplay(ctx, f, file, cmp.Or(g.maxMessage, transport.DefaultMaxMessage))
	switch {
	case ctx.Err() != nil:
		err = ctxErr(ctx, ctx.Err())
	case err != nil:
		err = fail.New(fail.Usage, "mcpc replay reads what --record writes (mcpc help record)", "recording %s: %v", file, err)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return p, f, nil
}

// serveBackend serves b until its client goes (stdio) or SIGINT/SIGTERM:
// over Streamable HTTP at /mcp when l is given, else on stdin and
// stdout, quiet: an mcpc that runs it as its --stdio server passes its
// stderr on, into the script's output. name names it in l's notes.
func serveBackend(ctx context.Context, st *state, b serve.Backend, name string, l *serve.Listen) error {
	if l != nil {
		h := &serve.HTTP{Endpoints: []serve.Endpoint{{Path: "/mcp", Backend: b}}, Secrets: st.secrets, MaxRequests: serve.DefaultMaxRequests}
		return l.Serve(ctx, h, name, st.env.Stderr)
	}
	in, ok := st.env.Stdin.(io.ReadCloser)
	if !ok {
		in = io.NopCloser(st.env.Stdin)
	}
	return serve.Stdio(ctx, b, in, st.env.Stdout, st.secrets, nil)
}
