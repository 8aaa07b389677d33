package commands

import (
	"cmp"
	"context"
	"encoding/json"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/serve"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/buildinfo"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/schemadiff"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

func mockCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "mock",
		Usage:     "serve a snapshot (from mcpc snapshot) as an MCP server: its tools, prompts and templates, arguments checked, results made up",
		ArgsUsage: "SNAPSHOT",
		Description: `Serves the snapshot file as an MCP server of its own on stdin and stdout (or
Streamable HTTP with --http, under serve's rules: loopback, a bearer token,
Origin checked), in both eras, so that a script's calls can be tested
without the server or its credentials: mcpc call --stdio 'mcpc mock
SNAPSHOT' TOOL ... It lists exactly the snapshot's tools, prompts and
resource templates (no resources: a snapshot keeps none), so mcpc diff of
the mock against its snapshot finds no change. A tools/call whose arguments
do not match the tool's inputSchema is refused with a JSON-RPC error
(invalid params, mcpc call's exit 7) naming the argument; an unknown tool
or prompt too. A call that matches is answered with the tool's answer from
--answers, else, for a tool with an outputSchema, the smallest
structuredContent the schema admits (const or the first enum value, every
required property, minItems items, minLength characters, minimum or 0,
the first branch of anyOf and oneOf, local $refs followed), with its JSON
as the text content; a tool without one answers {"content": []}.
prompts/get answers one user message: the prompt's name and its arguments
as NAME=VALUE. Anything else is "method not found".

--answers @FILE (or inline JSON, as for every command; not - on stdio) is
a JSON object of tool name to the whole CallToolResult that tool answers
with: {"search": {"content": [{"type": "text", "text": "3 hits"}],
"structuredContent": {"hits": 3}}}. Each answer is checked at
start: a tool the snapshot does not list, an answer without a "content"
array, or a structuredContent that does not match the outputSchema (or is
missing, unless "isError": true) is an error before anything is served
(exit 2), as is a snapshot file that is not one. A tool whose outputSchema
no value mcpc makes matches (a pattern, a required cycle) is noted at
start and its calls fail (JSON-RPC internal error, exit 7): give its
answer in --answers.`,
		Flags: serveHTTPFlags(),
		Metadata: helptext.Examples(
			"keep a snapshot of a server", "mcpc snapshot github > github.snapshot.json",
			"test a script's call against its mock", "mcpc call --stdio 'mcpc mock github.snapshot.json' search_issues query=bug",
			"the mock over Streamable HTTP on a free loopback port", "mcpc mock github.snapshot.json --http 127.0.0.1:0",
			"answers of your own", "mcpc mock github.snapshot.json --answers @answers.json",
		),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			// Checked before the flags are read: reading them reads
			// --answers -, and on stdio stdin is the client's.
			if cmd.String("answers") == "-" && cmd.String("http") == "" {
				return usagef("pass --answers @FILE", "--answers - would read the stdin mcpc mock serves on")
			}
			g, err := st.readGlobals(cmd)
			if err != nil {
				return err
			}
			if err := justOne(cmd.Args().Slice(), "write one with: mcpc snapshot SERVER > FILE", "SNAPSHOT file"); err != nil {
				return err
			}
			l, err := serveListen(cmd, st, g)
			if err != nil {
				return err
			}
			return runMock(ctx, st, g, cmd.Args().First(), l)
		},
	}
}

// runMock reads the snapshot and the answers, then serves the mock
// until its client goes (stdio) or SIGINT/SIGTERM.
func runMock(ctx context.Context, st *state, g *globals, file string, l *serve.Listen) error {
	snap, err := schemadiff.ReadFile(fsx.Under(g.cwd, file), file)
	if err != nil {
		return err
	}
	// --answers, which answers a server's questions elsewhere, answers
	// the mock's calls: the mock asks none.
	answers := make(map[string]json.RawMessage, len(g.input.Base))
	for name, v := range g.input.Base {
		answers[name], _ = json.Marshal(v)
	}
	m, err := serve.NewMock(ctx, file, snap, answers)
	if err != nil {
		return err
	}
	m.Version, m.Limit = buildinfo.Name(), cmp.Or(g.maxMessage, transport.DefaultMaxMessage)
	for _, why := range m.Unanswered() {
		textsafe.Note(st.env.Stderr, "%s", why)
	}
	return serveBackend(ctx, st, m, "mock", l)
}
