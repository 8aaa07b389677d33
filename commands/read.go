package commands

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/format"
)

func readCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "read",
		Usage:     "read a resource",
		ArgsUsage: "SERVER URI",
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			server, rest, err := target(g, cmd.Args().Slice())
			if err != nil {
				return err
			}
			if len(rest) != 1 {
				if len(rest) == 0 {
					return usagef("list resources with: mcpc list SERVER resources", "missing URI")
				}
				return usagef("", "unexpected argument %q", rest[1])
			}
			sess, closeFn, err := st.open(ctx, g, server)
			if err != nil {
				return err
			}
			defer closeFn()
			res, err := sess.ReadResource(ctx, rest[0])
			if err != nil {
				return err
			}
			return st.printRaw(g, format.KindReadResource, res)
		}),
	}
}
