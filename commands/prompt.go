package commands

import (
	"context"
	"encoding/json"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/format"
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
		Metadata: examples(
			"a prompt with one argument", "mcpc prompt everything args-prompt city=Paris",
			"its messages as JSON", "mcpc prompt everything args-prompt city=Paris --json",
		),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "args", Aliases: []string{"a"}, Usage: "prompt arguments as a JSON object of strings, @FILE, or - (stdin)"},
		},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			o, err := st.promptArgs(g, cmd)
			if err != nil {
				return err
			}
			return st.runPrompt(ctx, g, o)
		}),
	}
}

func (st *state) promptArgs(g *globals, cmd *cli.Command) (promptOptions, error) {
	var o promptOptions
	server, rest, err := target(g, cmd.Args().Slice())
	if err != nil {
		return o, err
	}
	if len(rest) == 0 {
		return o, usagef("list prompts with: mcpc list SERVER prompts", "missing prompt NAME")
	}
	o.server, o.name = server, rest[0]
	pairs, err := toolschema.ParsePairs(rest[1:])
	if err != nil {
		return o, err
	}
	if err := st.readArgFiles(g, pairs); err != nil {
		return o, err
	}
	base, err := toolschema.ReadArgs(cmd.String("args"), st.env.Stdin, g.cwd)
	if err != nil {
		return o, err
	}
	o.args = map[string]string{}
	for k, v := range base {
		s, ok := v.(string)
		if !ok {
			return o, usagef("prompt arguments are strings", "--args: value of %q must be a string", k)
		}
		o.args[k] = s
	}
	for _, p := range pairs {
		if p.Typed {
			// Prompt arguments are strings on the wire; key:=json
			// sends the JSON text itself.
			var v any
			_ = json.Unmarshal([]byte(p.Raw), &v)
			if s, ok := v.(string); ok {
				o.args[p.Key] = s
				continue
			}
		}
		o.args[p.Key] = p.Raw
	}
	return o, nil
}

func (st *state) runPrompt(ctx context.Context, g *globals, o promptOptions) error {
	sess, closeFn, err := st.open(ctx, g, o.server)
	if err != nil {
		return err
	}
	defer closeFn()
	res, err := sess.GetPrompt(ctx, o.name, o.args)
	if err != nil {
		return err
	}
	return st.printRaw(g, format.KindGetPrompt, res)
}
