package commands

import (
	"context"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/serve"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

func serveCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "lend a server to other MCP clients, without lending its credentials",
		ArgsUsage: "SERVER",
		Description: `Serves SERVER as an MCP server of its own on stdin and stdout, so that any MCP
host can run 'mcpc serve SERVER' as its server command: the host reaches the
server through mcpc and never holds its token, headers, environment or
command line. The server is reached through its live session; without one,
serve holds the session itself until it ends (other invocations attach to it
meanwhile); with --no-session (and for a --stdio or URL target) serve holds
the server alone. It runs until the client closes stdin, or SIGINT/SIGTERM.
See 'mcpc help serve'.`,
		Metadata: helptext.Examples(
			"an MCP host's server command that lends the github entry", "mcpc serve github",
		),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			g, err := st.readGlobals(cmd)
			if err != nil {
				return err
			}
			server, err := serveArgs(g, cmd.Args().Slice())
			if err != nil {
				return err
			}
			// serve lives until its client goes: --timeout bounds no call
			// of its own, so it does not bound serve.
			return runServe(ctx, st, g, server)
		},
	}
}

// serveArgs reads serve's SERVER: one for now (several served as one
// are issue 34's aggregation).
func serveArgs(g *globals, args []string) (string, error) {
	if len(args) > 1 {
		return "", usagef("serve one server per mcpc serve", "serving several servers as one is not supported yet: got %d servers", len(args))
	}
	return soleTarget(g, args)
}

// runServe lends server to the client on stdin and stdout.
func runServe(ctx context.Context, st *state, g *globals, server string) error {
	up, done, err := st.connector(g).ServeUpstream(ctx, server)
	if err != nil {
		return err
	}
	defer done()
	how := "held by serve"
	if up.Session != "" {
		how = "through its session (" + up.SessionEra.String() + ")"
	}
	textsafe.Note(st.env.Stderr, "serving %s on stdio, %s", up.Name, how)
	in, ok := st.env.Stdin.(io.ReadCloser)
	if !ok {
		in = io.NopCloser(st.env.Stdin)
	}
	return serve.Stdio(ctx, up, in, st.env.Stdout, st.secrets)
}
