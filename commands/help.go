package commands

import (
	"context"
	"fmt"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/urfave/cli/v3"
)

func helpCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show help for a command, or a topic: exit-codes",
		ArgsUsage: "[COMMAND | exit-codes]",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			root := cmd.Root()
			switch topic := cmd.Args().First(); topic {
			case "":
				return cli.ShowRootCommandHelp(root)
			case "exit-codes":
				_, err := fmt.Fprint(st.env.Stdout, exitCodesHelp())
				return err
			default:
				if sub := root.Command(topic); sub != nil {
					return cli.ShowCommandHelp(ctx, root, topic)
				}
				return usagef("topics: exit-codes; commands: list, call, read, prompt, config, trust, untrust", "no help for %q", topic)
			}
		},
	}
}

func readFile(path string) ([]byte, error) {
	data, err := client.ReadSmallFile(path, client.MaxConfigFile)
	if err != nil {
		return nil, &fail.Error{Code: fail.Config, Msg: fmt.Sprintf("cannot read %s: %v", path, err), Err: err}
	}
	return data, nil
}
