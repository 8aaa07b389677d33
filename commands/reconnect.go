package commands

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	clientstate "github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/format"
)

type reconnectOptions struct {
	server string
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
			server, rest, err := target(g, cmd.Args().Slice())
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usagef("", "unexpected argument %q", rest[0])
			}
			return st.runReconnect(ctx, g, &reconnectOptions{server: server})
		}),
	}
}

func (st *state) runReconnect(ctx context.Context, g *globals, o *reconnectOptions) error {
	entry, err := st.resolve(g, o.server)
	if err != nil {
		return err
	}
	client.ForgetServer(clientstate.NewMemo(g.dirs.State, g.dirs.Cache), entry, g.cwd)
	sess, closeFn, err := st.openEntry(ctx, g, entry)
	if err != nil {
		return err
	}
	defer closeFn()
	r := sess.CS.InitializeResult()
	return st.print(g, format.KindGeneric, map[string]any{
		"serverInfo":      r.ServerInfo,
		"protocolVersion": r.ProtocolVersion,
		"capabilities":    r.Capabilities,
		"instructions":    r.Instructions,
	})
}
