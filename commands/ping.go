package commands

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/helptext"
)

func pingCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "ping",
		Usage:     "check that a server answers, and how fast",
		ArgsUsage: "SERVER",
		Description: `Connects to the server and times one round trip: a ping to a 2025 server;
a 2026-07-28 server has no ping, so there a server/discover, sent to the
server even when its answer is remembered. Prints the time (--json:
{"server":…,"revision":…,"ms":…}). The exit status is that of what failed:
5 unreachable, 4 needs login, 6 timed out (see 'mcpc help exit-codes').`,
		Metadata: helptext.Examples(
			"is the server up, and how fast does it answer?", "mcpc ping everything",
			"the round trip in milliseconds, for a script", "mcpc ping everything -q ms",
		),
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			server, err := soleTarget(g, cmd.Args().Slice())
			if err != nil {
				return err
			}
			return runPing(ctx, st.runIO(g), pingOptions{server: server, structured: g.structured()})
		}),
	}
}

type pingOptions struct {
	server string
	// structured: print format.Ping as JSON (or --query of it), not a line.
	structured bool
}

// runPing times one round trip to the server and prints it.
func runPing(ctx context.Context, rio runIO, o pingOptions) error {
	srv, err := rio.reach(ctx, o.server, reachOptions{})
	if err != nil {
		return err
	}
	defer srv.close()
	rtt, err := srv.sess.Ping(ctx)
	if err != nil {
		return err
	}
	r := format.NewPing(srv.entry.ShownName(), srv.sess.initializeResult().ProtocolVersion, rtt)
	if !o.structured {
		return rio.write([]byte(r.Text()))
	}
	return rio.print(format.KindGeneric, r)
}
