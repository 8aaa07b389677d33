package commands

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

type configImportOptions struct {
	arg         string // APP or FILE; empty: list
	from        string // the format of FILE, when its name does not say
	project     bool
	dryRun      bool
	overwrite   bool
	keepSecrets bool
	only        []string
}

func configImportCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "copy servers configured for other apps into mcpc's config",
		ArgsUsage: "[APP | FILE]",
		Description: `Without an argument, lists the files of other MCP hosts that hold servers,
how many, and which names the config file already has; nothing is written.
APP is one of ` + strings.Join(config.ImportApps, ", ") + `:
its user file and the project's (found from here up to the repository root)
are read. FILE is one file in any of those formats (told by its name or
content; --from APP says it). The servers go into the user config file, or
with --project the project's .mcp.json (which stays trusted, as with
'config add --project'), under the same lock and checks as 'config add'.
A name the file already has is kept unless --overwrite. Interpolation
(${env:VAR}, $VAR) becomes ${VAR}; ${input:ID} and ${workspaceFolder}
become ${ID} with a note naming what to export. A literal credential (an
env value or header named *TOKEN*, *SECRET*, *PASSWORD*, *COOKIE*,
*CREDENTIAL*, or with a word KEY, PASS, PAT, PWD, AUTH: DB_PASS,
githubPat; or a token-shaped value: ghp_..., sk-..., xoxb-..., a JWT, a
long random string) is replaced by ${NAME} to export, unless --keep-secrets copies it
into the user file (never into a project file). An entry mcpc cannot use is
skipped with its file:line and reason; exit 3 when nothing could be
imported.`,
		Metadata: examples(
			"what could be imported, from which app", "mcpc config import --text",
			"preview Claude Desktop's servers", "mcpc config import claude-desktop --dry-run",
			"two of Cursor's servers, into this project", "mcpc config import cursor --only github,linear --project",
		),
		Flags: []cli.Flag{
			projectFlag,
			&cli.BoolFlag{Name: "dry-run", Usage: "print the entries that would be written, and write nothing"},
			&cli.BoolFlag{Name: "overwrite", Usage: "replace servers of the same name (kept by default)"},
			&cli.StringSliceFlag{Name: "only", Usage: "import only these servers: `NAME,...` (repeatable)"},
			&cli.BoolFlag{Name: "keep-secrets", Usage: "copy literal credentials into the user config file (made private) instead of ${VAR}"},
			&cli.StringFlag{Name: "from", Usage: "the `APP` whose format FILE is in"},
		},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			o := configImportOptions{
				from: cmd.String("from"), project: cmd.Bool("project"), dryRun: cmd.Bool("dry-run"),
				overwrite: cmd.Bool("overwrite"), keepSecrets: cmd.Bool("keep-secrets"),
			}
			for _, v := range cmd.StringSlice("only") {
				for _, n := range strings.Split(v, ",") {
					if n = strings.TrimSpace(n); n != "" {
						o.only = append(o.only, n)
					}
				}
			}
			switch args := cmd.Args().Slice(); {
			case len(args) > 1:
				return usagef("", "unexpected argument %q", args[1])
			case len(args) == 1:
				o.arg = args[0]
			case len(o.only) > 0 || o.from != "":
				return usagef("mcpc config import APP --only NAME", "--only and --from need an APP or FILE")
			}
			if o.from != "" && !slices.Contains(config.ImportApps, o.from) {
				return usagef("use one of "+strings.Join(config.ImportApps, ", "), "unknown --from app %q", o.from)
			}
			return st.runConfigImport(ctx, g, o)
		}),
	}
}

// configImport is the import o asks for, into target, its notes on stderr.
func (st *state) configImport(g *globals, o configImportOptions, target config.ConfigEdit) *config.Import {
	return &config.Import{
		Arg: o.arg, From: o.from, Only: o.only, Overwrite: o.overwrite, KeepSecrets: o.keepSecrets,
		Target: target,
		Env:    config.ImportEnv{Home: g.dirs.Home, Cwd: g.cwd, Getenv: st.env.Getenv, GOOS: runtime.GOOS},
		Note:   func(format string, args ...any) { textsafe.Note(st.env.Stderr, format, args...) },
	}
}

func (st *state) runConfigImport(ctx context.Context, g *globals, o configImportOptions) error {
	target := st.editTarget(g, o.project)
	im := st.configImport(g, o, target)
	if o.arg == "" {
		return st.runIO(g).print(format.KindImportList, map[string]any{"target": target.Path, "sources": im.Listing()})
	}
	files, err := im.Files()
	if err != nil {
		return err
	}
	chosen, failed, err := im.Choose(files)
	if err != nil {
		return err
	}
	if o.dryRun {
		return st.importDryRun(im, chosen, failed)
	}
	res, err := im.Write(ctx, chosen)
	if err != nil {
		return err
	}
	if res.Secrets {
		textsafe.Note(st.env.Stderr, "%s now holds secrets (--keep-secrets); it is readable by you only (mode 0600)", target.Path)
	}
	st.importKeptNotes(res.Kept, target.Path)
	if res.Source == config.SourceProject && !res.Trusted && len(res.Written) > 0 {
		textsafe.Note(st.env.Stderr, "%s is not trusted; its servers are ignored until 'mcpc trust'", res.Path)
	}
	if err := st.importResult(g, target.Path, res.Written, res.Kept, failed); err != nil {
		return err
	}
	return config.ImportVerdict(res.Written, res.Kept, failed)
}

// importDryRun prints the entries as they would be written into the
// target (an "mcpServers" object), and writes nothing.
func (st *state) importDryRun(im *config.Import, chosen []*config.Prepared, failed []config.ImportFailure) error {
	out, written, kept, err := im.DryRun(chosen)
	if err != nil {
		return err
	}
	st.importKeptNotes(kept, im.Target.Path)
	if _, err := fmt.Fprintln(st.env.Stdout, strings.TrimRight(string(out), "\n")); err != nil {
		return err
	}
	textsafe.Note(st.env.Stderr, "dry run: %s not written", im.Target.Path)
	return config.ImportVerdict(written, kept, failed)
}

func (st *state) importKeptNotes(kept []string, path string) {
	for _, n := range kept {
		textsafe.Note(st.env.Stderr, "kept %q: %s has a server of that name (--overwrite replaces it)", n, path)
	}
}

func (st *state) importResult(g *globals, path string, written, kept []string, failed []config.ImportFailure) error {
	if g.mode == format.ModeJSON || g.query != "" {
		return st.runIO(g).print(format.KindGeneric, map[string]any{
			"file": path, "imported": nonNil(written), "kept": nonNil(kept), "skipped": nonNil(failed),
		})
	}
	if len(written) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(st.env.Stdout, "imported %s into %s\n", strings.Join(written, ", "), path)
	return err
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
