package commands

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

type configImportOptions struct {
	// im is the import asked for; its Note is set to stderr by the run.
	im         *config.Import
	dryRun     bool
	structured bool
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
		Metadata: helptext.Examples(
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
			im := &config.Import{From: cmd.String("from"), Overwrite: cmd.Bool("overwrite"), KeepSecrets: cmd.Bool("keep-secrets"),
				Env: config.ImportEnv{Home: g.dirs.Home, Cwd: g.cwd, Getenv: st.env.Getenv, GOOS: runtime.GOOS}}
			if err := im.SetArgs(cmd.Args().Slice(), cmd.StringSlice("only")); err != nil {
				return err
			}
			im.Target = config.EditTarget(g.dirs, g.cwd, cmd.Bool("project"), st.env.Now())
			return runConfigImport(ctx, st.runIO(g), configImportOptions{im: im, dryRun: cmd.Bool("dry-run"), structured: g.structured()})
		}),
	}
}

// runConfigImport lists what could be imported, or imports it (with
// --dry-run, prints what it would write).
func runConfigImport(ctx context.Context, rio runIO, o configImportOptions) error {
	im := o.im
	im.Note = func(format string, args ...any) { textsafe.Note(rio.stderr, format, args...) }
	if im.Arg == "" {
		return rio.print(format.KindImportList, map[string]any{"target": im.Target.Path, "sources": im.Listing()})
	}
	res, err := im.Run(ctx, o.dryRun)
	if err != nil {
		return err
	}
	switch {
	case o.dryRun:
		if err := rio.write(append(bytes.TrimRight(res.Preview, "\n"), '\n')); err != nil {
			return err
		}
		textsafe.Note(rio.stderr, "dry run: %s not written", res.File)
	case o.structured:
		if err := rio.print(format.KindGeneric, res); err != nil {
			return err
		}
	case len(res.Imported) > 0:
		if err := rio.write(fmt.Appendf(nil, "imported %s into %s\n", strings.Join(res.Imported, ", "), res.File)); err != nil {
			return err
		}
	}
	return res.Verdict()
}
