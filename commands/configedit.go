package commands

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/cards"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// configEditOptions is a config add (server set) or remove.
type configEditOptions struct {
	name   string
	server *config.Server
	// target is the file edited (config.EditTarget); structured: the
	// result is printed as JSON (or --query of it), not as a sentence.
	target     config.ConfigEdit
	structured bool
	// notes are said once the edit is made (what a card's entry reads).
	notes []string
}

var projectFlag = &cli.BoolFlag{Name: "project", Usage: "edit the project's .mcp.json (found upwards, or made here) instead of the user file"}

func configAddCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "add a server to the user config file (or the project's)",
		ArgsUsage: "NAME URL | NAME --card URL | NAME -- COMMAND [ARGS...] | NAME --stdio 'COMMAND ARGS'",
		Description: `Writes the server into the config file, replacing one of the same name there;
the rest of the file keeps its bytes. Headers (-H), a bearer token variable
(--bearer-env) or command (--bearer-command), a headers command
(--headers-command, --headers-ttl) and a protocol (--protocol) go with a
URL; --env with a command. Values may hold ${VAR}, expanded when the server is used (quote
them from the shell). The file is written atomically and under a lock
(concurrent edits all land); a symlink stays one, its target is written.
With --project, a trusted project file stays trusted.

With --card, the entry is the Server Card's remote (SEP-2127, draft; fetched
as mcpc discover fetches it): its URL (a URL variable takes the card's value
or default), its transport, and each header it asks for, a value the user
supplies written as ${MCPC_NAME_VAR} (a note names each), never a secret or
a $ of the card's. -H and --bearer-env apply on top.`,
		Metadata: helptext.Examples(
			"an HTTP server whose token is in $GITHUB_TOKEN", "mcpc config add github https://api.githubcopilot.com/mcp/ --bearer-env GITHUB_TOKEN",
			"an HTTP server whose token gcloud prints", `mcpc config add api https://mcp.example.com/mcp --bearer-command 'gcloud auth print-access-token'`,
			"a stdio server started with npx", "mcpc config add everything -- npx -y @modelcontextprotocol/server-everything",
			"with an environment variable, for this project", `mcpc config add --project --env 'API_KEY=${API_KEY}' tools -- ./bin/server`,
			"from a server's Server Card", "mcpc config add weather --card https://mcp.example.com/mcp/server-card",
		),
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "env", Aliases: []string{"e"}, Usage: "set `KEY=VALUE` in a stdio server's environment (repeatable)"},
			&cli.StringFlag{Name: "bearer-command", Usage: "an HTTP server's token is what `'COMMAND ARGS'` prints (bearerTokenCommand)"},
			&cli.StringFlag{Name: "headers-command", Usage: "an HTTP server's headers are the JSON object `'COMMAND ARGS'` prints (headersCommand)"},
			&cli.StringFlag{Name: "headers-ttl", Usage: "a session uses what the helper printed for `DURATION` (headersTtl)"},
			&cli.StringFlag{Name: "card", Usage: "take the URL, transport and headers from the Server Card at `URL` (SEP-2127, draft)"},
			projectFlag,
		},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			args, fromCard, err := cardArgs(ctx, cmd.Args().Slice(), cmd.String("card"))
			if err != nil {
				return err
			}
			name, srv, err := config.ParseAdd(args, cmd.StringSlice("env"), g.adhoc)
			if err != nil {
				return err
			}
			helpers := config.AddHelpers{HeadersCommand: cmd.String("headers-command"), BearerCommand: cmd.String("bearer-command"), TTL: cmd.String("headers-ttl")}
			if err := helpers.Set(srv); err != nil {
				return err
			}
			o := configEditOptions{name: name, server: srv, structured: g.structured(),
				target: config.EditTarget(g.dirs, g.cwd, cmd.Bool("project"), st.env.Now())}
			if fromCard != nil {
				fromCard.Apply(srv)
				for _, v := range fromCard.Vars {
					o.notes = append(o.notes, name+" reads "+v.Note())
				}
			}
			return runConfigAdd(ctx, st.runIO(g), o)
		}),
	}
}

func configRemoveCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "remove",
		Aliases:   []string{"rm"},
		Usage:     "remove a server from the user config file (or the project's)",
		ArgsUsage: "NAME",
		Description: `Deletes the server's entry from the config file; the rest of the file keeps
its bytes. The file is written atomically, under a lock, and through a
symlink.`,
		Metadata: helptext.Examples("forget a server", "mcpc config remove everything"),
		Flags:    []cli.Flag{projectFlag},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			name, err := configRemoveArgs(cmd.Args().Slice())
			if err != nil {
				return err
			}
			o := configEditOptions{name: name, structured: g.structured(),
				target: config.EditTarget(g.dirs, g.cwd, cmd.Bool("project"), st.env.Now())}
			return runConfigRemove(ctx, st.runIO(g), o)
		}),
	}
}

func runConfigAdd(ctx context.Context, rio runIO, o configEditOptions) error {
	f, err := o.target.Add(ctx, o.name, o.server)
	if err != nil {
		return err
	}
	for _, n := range o.notes {
		textsafe.Note(rio.stderr, "%s", n)
	}
	return edited(rio, o, f, "added")
}

func runConfigRemove(ctx context.Context, rio runIO, o configEditOptions) error {
	f, err := o.target.Remove(ctx, o.name)
	if err != nil {
		return err
	}
	return edited(rio, o, f, "removed")
}

// edited says what was done, and notes that a project file the user edited
// but never trusted still is not.
func edited(rio runIO, o configEditOptions, f *config.Edited, what string) error {
	if n := f.UntrustedNote(); n != "" {
		textsafe.Note(rio.stderr, "%s", n)
	}
	if o.structured {
		return rio.print(format.KindGeneric, map[string]any{what: o.name, "file": f.Path})
	}
	return rio.write(fmt.Appendf(nil, "%s %s in %s\n", what, o.name, f.Path))
}

// cardArgs are config add's arguments with --card URL: NAME and the URL
// of the card's remote, and the card's entry (nil without --card).
func cardArgs(ctx context.Context, args []string, card string) ([]string, *cards.Entry, error) {
	if card == "" {
		return args, nil, nil
	}
	if len(args) != 1 {
		return nil, nil, usagef("the card gives the URL: mcpc config add NAME --card URL", "--card takes NAME alone")
	}
	c, err := cards.FetchCard(ctx, card)
	if err != nil {
		return nil, nil, err
	}
	e, err := c.Entry(urlx.Redact(card), args[0])
	if err != nil {
		return nil, nil, err
	}
	return []string{args[0], e.URL}, e, nil
}

// configRemoveArgs reads remove's one NAME.
func configRemoveArgs(args []string) (string, error) {
	if err := justOne(args, "", "NAME"); err != nil {
		return "", err
	}
	return args[0], nil
}
