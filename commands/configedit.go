package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

type configAddOptions struct {
	name    string
	server  config.Server
	project bool
	// target is the file edited (editTarget); structured: the result is
	// printed as JSON (or --query of it), not as a sentence.
	target     config.ConfigEdit
	structured bool
}

type configRemoveOptions struct {
	name       string
	target     config.ConfigEdit // the file edited (editTarget)
	structured bool
}

var projectFlag = &cli.BoolFlag{Name: "project", Usage: "edit the project's .mcp.json (found upwards, or made here) instead of the user file"}

func configAddCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "add a server to the user config file (or the project's)",
		ArgsUsage: "NAME URL | NAME -- COMMAND [ARGS...] | NAME --stdio 'COMMAND ARGS'",
		Description: `Writes the server into the config file, replacing one of the same name there;
the rest of the file keeps its bytes. Headers (-H), a bearer token variable
(--bearer-env) and a protocol (--protocol) go with a URL; --env with a
command. Values may hold ${VAR}, expanded when the server is used (quote
them from the shell). The file is written atomically and under a lock
(concurrent edits all land); a symlink stays one, its target is written.
With --project, a trusted project file stays trusted.`,
		Metadata: examples(
			"an HTTP server whose token is in $GITHUB_TOKEN", "mcpc config add github https://api.githubcopilot.com/mcp/ --bearer-env GITHUB_TOKEN",
			"a stdio server started with npx", "mcpc config add everything -- npx -y @modelcontextprotocol/server-everything",
			"with an environment variable, for this project", `mcpc config add --project --env 'API_KEY=${API_KEY}' tools -- ./bin/server`,
		),
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "env", Aliases: []string{"e"}, Usage: "set `KEY=VALUE` in a stdio server's environment (repeatable)"},
			projectFlag,
		},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			o, err := configAddArgs(g, cmd)
			if err != nil {
				return err
			}
			o.target, o.structured = st.editTarget(g, o.project), g.structured()
			return runConfigAdd(ctx, st.runIO(g), o)
		}),
	}
}

func configAddArgs(g *globals, cmd *cli.Command) (configAddOptions, error) {
	o := configAddOptions{project: cmd.Bool("project")}
	args := cmd.Args().Slice()
	if len(args) == 0 {
		return o, usagef("mcpc config add NAME URL, or mcpc config add NAME -- COMMAND ARGS", "missing NAME")
	}
	o.name = args[0]
	s := &o.server
	switch {
	case len(args) == 2 && !g.adhoc.IsStdio():
		if !config.IsURL(args[1]) {
			return o, usagef("give a URL, or the command after --", "%q is not an http(s) URL", args[1])
		}
		s.URL = args[1]
	case len(args) > 2:
		return o, usagef("", "unexpected argument %q", args[2])
	case len(args) == 2:
		return o, usagef("", "give either a URL or a command, not both")
	case len(g.adhoc.Argv) > 0:
		s.Command, s.Args = g.adhoc.Argv[0], g.adhoc.Argv[1:]
	case g.adhoc.Stdio != "":
		argv, err := shellwords.Split(g.adhoc.Stdio)
		if err != nil || len(argv) == 0 {
			return o, usagef("", "--stdio: cannot split %q", g.adhoc.Stdio)
		}
		s.Command, s.Args = argv[0], argv[1:]
	default:
		return o, usagef("mcpc config add NAME URL, or mcpc config add NAME -- COMMAND ARGS", "missing the server's URL or command")
	}
	for _, kv := range cmd.StringSlice("env") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			// Only the key: what follows "=" may be a secret.
			return o, usagef("write --env KEY=VALUE", "bad --env %q: expected KEY=VALUE", k)
		}
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env[k] = v
	}
	for _, h := range g.adhoc.Headers {
		k, v, err := config.ParseHeader(h)
		if err != nil {
			return o, err
		}
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		s.Headers[k] = v
	}
	s.BearerTokenEnv, s.Protocol = g.adhoc.BearerEnv, g.adhoc.Protocol
	return o, nil
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
		Metadata: examples("forget a server", "mcpc config remove everything"),
		Flags:    []cli.Flag{projectFlag},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			if cmd.Args().Len() != 1 {
				if cmd.Args().Len() == 0 {
					return usagef("", "missing NAME")
				}
				return usagef("", "unexpected argument %q", cmd.Args().Get(1))
			}
			o := configRemoveOptions{name: cmd.Args().First(), target: st.editTarget(g, cmd.Bool("project")), structured: g.structured()}
			return runConfigRemove(ctx, st.runIO(g), o)
		}),
	}
}

// editTarget is the file config add, remove and import edit
// (config.EditTarget).
func (st *state) editTarget(g *globals, project bool) config.ConfigEdit {
	return config.EditTarget(g.dirs, g.cwd, project, st.env.Now())
}

func runConfigAdd(ctx context.Context, rio runIO, o configAddOptions) error {
	f, err := config.EditFile(ctx, o.target, func(data []byte) ([]byte, error) {
		return config.SetServer(data, o.name, &o.server)
	})
	if err != nil {
		return err
	}
	return edited(rio, o.structured, f, "added", o.name)
}

func runConfigRemove(ctx context.Context, rio runIO, o configRemoveOptions) error {
	found := false
	f, err := config.EditFile(ctx, o.target, func(data []byte) ([]byte, error) {
		out, ok, err := config.RemoveServer(data, o.name)
		found = ok
		return out, err
	})
	if err != nil {
		return err
	}
	if !found {
		return fail.New(fail.Config, "see the servers with: mcpc config", "%s has no server %q", o.target.Path, o.name)
	}
	return edited(rio, o.structured, f, "removed", o.name)
}

// edited says what was done, and notes that a project file the user edited
// but never trusted still is not (EditFile kept a trusted one trusted).
func edited(rio runIO, structured bool, f *config.Edited, what, name string) error {
	if f.Source == config.SourceProject && !f.Trusted {
		textsafe.Note(rio.stderr, "%s is not trusted; its servers are ignored until 'mcpc trust'", f.Path)
	}
	res := map[string]any{what: name, "file": f.Path}
	if structured {
		return rio.print(format.KindGeneric, res)
	}
	return rio.write(fmt.Appendf(nil, "%s %s in %s\n", what, name, f.Path))
}
