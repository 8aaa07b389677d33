package commands

import (
	"context"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

type configOptions struct {
	load    func() (*config.Config, error)
	verbose func(string) // --verbose's trace lines; nil without it
}

func configCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "show the merged server configuration and where each server comes from",
		Description: `Prints every server that an invocation could use, after precedence (user
file, trusted project .mcp.json, --config / MCPC_CONFIG), with the file it
came from: a table with --text (the default on a terminal), every field with
--json. Header and env values are redacted. See 'mcpc help config'.`,
		Metadata: helptext.Examples(
			"which file each server comes from", "mcpc config --text",
			"one server's entry, as JSON", `mcpc config -q 'servers.#(name=="everything").server'`,
			"add a server, then remove it", "mcpc config add web https://mcp.example.com/mcp && mcpc config remove web",
		),
		Commands: []*cli.Command{configAddCommand(st), configRemoveCommand(st), configImportCommand(st), configClientMetadataCommand(st)},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			if err := noMoreThan(cmd.Args().Slice(), 0, ""); err != nil {
				return err
			}
			return runConfig(st.runIO(g), configOptions{load: g.loadConfig, verbose: g.trace(st.env.Stderr)})
		}),
	}
}

// runConfig prints the servers after precedence, with a note for each
// one mcpc cannot use and for a project file it did not load.
func runConfig(rio runIO, o configOptions) error {
	cfg, err := o.load()
	if err != nil {
		return err
	}
	rows := cfg.Shown()
	for _, r := range rows {
		entryNotes(rio.stderr, o.verbose, cfg.Servers[r.Name].Server, true)
	}
	if p := cfg.Project; p != nil && p.Err == nil && cfg.ProjectTrust != config.Trusted {
		textsafe.Note(rio.stderr, "project file %s is %s and was not loaded (mcpc trust)", p.Path, cfg.ProjectTrust)
	}
	return rio.print(format.KindConfig, withUnusable(rio.stderr, cfg, map[string]any{"servers": rows}))
}

// entryNotes says what mcpc does not use of a listed entry: why a loaded
// one is unusable, in a note; under --verbose (trace), each key of another
// host's that it ignores.
func entryNotes(stderr io.Writer, trace func(string), srv *config.Server, loaded bool) {
	if err := srv.Unusable(); err != nil && loaded {
		textsafe.Note(stderr, "%s", err)
	}
	traceIgnored(trace, srv)
}

// traceIgnored writes, under --verbose, the keys of another host's that
// mcpc ignores in srv's entry.
func traceIgnored(trace func(string), srv *config.Server) {
	if trace != nil {
		for _, n := range srv.IgnoredNotes() {
			trace(n)
		}
	}
}
