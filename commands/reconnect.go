package commands

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/format"
)

type reconnectOptions struct {
	server     string
	structured bool // print the handshake's JSON (or --query of it), not text
}

func reconnectCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "reconnect",
		Usage:     "forget what mcpc remembers about a server, connect afresh and show what it is",
		ArgsUsage: "SERVER",
		Description: `Drops the server's remembered protocol era and its cached results, probes
it again, and prints its identity, the negotiated protocol revision, its
capabilities and instructions. Credentials, remembered scopes and detached
tasks are kept. It never starts an authorization.

Example:
   mcpc reconnect github --json`,
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			server, err := soleTarget(g, cmd.Args().Slice())
			if err != nil {
				return err
			}
			// A copy: the flags the invocation read stay as they were.
			fresh := *g
			fresh.reprobe = true
			return runReconnect(ctx, st.runIO(&fresh), reconnectOptions{server: server, structured: g.structured()})
		}),
	}
}

// runReconnect connects afresh (rio's connections reprobe the server)
// and prints what the handshake said.
func runReconnect(ctx context.Context, rio runIO, o reconnectOptions) error {
	srv, err := rio.reach(ctx, o.server, reachOptions{})
	if err != nil {
		return err
	}
	defer srv.close()
	r := srv.sess.initializeResult()
	if o.structured {
		return rio.print(format.KindGeneric, format.Handshake(r))
	}
	s := format.Summary(r, client.CapabilityNames(r.Capabilities), srv.entry.Server.URL, srv.sess.speaksSSE())
	return rio.write([]byte(s.Text()))
}
