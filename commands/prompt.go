package commands

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

type promptOptions struct {
	server string
	name   string
	args   map[string]string
}

func promptCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "prompt",
		Usage:     "get a prompt",
		ArgsUsage: "SERVER NAME [key=value ...]",
		Description: `Sends prompts/get for the prompt NAME and prints its messages. Prompt
arguments are strings: key=value words and --args (a JSON object of strings,
@FILE, or - for stdin); words win. key=@PATH sends a file's text, key=@-
standard input (once), key=@@text the literal @text, as 'mcpc call' does.
'mcpc list SERVER prompts NAME' shows the arguments a prompt takes.`,
		Metadata: helptext.Examples(
			"a prompt with one argument", "mcpc prompt everything args-prompt city=Paris",
			"its messages as JSON", "mcpc prompt everything args-prompt city=Paris --json",
		),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "args", Aliases: []string{"a"}, Usage: "prompt arguments as a JSON object of strings, @FILE, or - (stdin)"},
		},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			o, err := promptArgs(g, cmd.Args().Slice(), cmd.String("args"), argSource(st.env.Stdin, g))
			if err != nil {
				return err
			}
			return runPrompt(ctx, st.runIO(g), o)
		}),
	}
}

// promptArgs reads prompt's words and --args into its options, the
// files they name read, before any connection.
func promptArgs(g *globals, words []string, argsFlag string, src toolschema.Source) (promptOptions, error) {
	var o promptOptions
	server, rest, err := g.adhoc.Target(words)
	if err != nil {
		return o, err
	}
	if len(rest) == 0 {
		return o, usagef("list prompts with: mcpc list SERVER prompts", "missing prompt NAME")
	}
	o.server, o.name = server, rest[0]
	o.args, err = src.ReadPrompt(rest[1:], argsFlag)
	return o, err
}

// runPrompt gets the prompt and prints its messages.
func runPrompt(ctx context.Context, rio runIO, o promptOptions) error {
	sess, closeFn, err := rio.open(ctx, o.server)
	if err != nil {
		return err
	}
	defer closeFn()
	res, err := sess.GetPrompt(ctx, o.name, o.args)
	if err != nil {
		return err
	}
	return rio.printRaw(format.KindGetPrompt, res)
}
