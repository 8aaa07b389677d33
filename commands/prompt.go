package commands

import (
	"context"
	"encoding/json"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/format"
)

func promptCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "prompt",
		Usage:     "get a prompt",
		ArgsUsage: "SERVER NAME [key=value ...]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "args", Aliases: []string{"a"}, Usage: "prompt arguments as a JSON object of strings, @FILE, or - (stdin)"},
		},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			server, rest, err := target(g, cmd.Args().Slice())
			if err != nil {
				return err
			}
			if len(rest) == 0 {
				return usagef("list prompts with: mcpc list SERVER prompts", "missing prompt NAME")
			}
			pairs, err := parsePairs(rest[1:])
			if err != nil {
				return err
			}
			base, err := readArgsFlag(cmd.String("args"), st.env.Stdin, g.cwd)
			if err != nil {
				return err
			}
			args := map[string]string{}
			for k, v := range base {
				s, ok := v.(string)
				if !ok {
					return usagef("prompt arguments are strings", "--args: value of %q must be a string", k)
				}
				args[k] = s
			}
			for _, p := range pairs {
				if p.typed {
					// Prompt arguments are strings on the wire; key:=json
					// sends the JSON text itself.
					var v any
					_ = json.Unmarshal([]byte(p.raw), &v)
					if s, ok := v.(string); ok {
						args[p.key] = s
						continue
					}
				}
				args[p.key] = p.raw
			}
			sess, closeFn, err := st.open(ctx, g, server)
			if err != nil {
				return err
			}
			defer closeFn()
			res, err := sess.GetPrompt(ctx, rest[0], args)
			if err != nil {
				return err
			}
			return st.printRaw(g, format.KindGetPrompt, res)
		}),
	}
}
