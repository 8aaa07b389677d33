package commands

import (
	"context"
	"maps"
	"slices"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

const redacted = "<redacted>"

type configRow struct {
	Name   string         `json:"name"`
	Source string         `json:"source"`
	Server *config.Server `json:"server"`
	// Unusable is why mcpc cannot use the entry, as in 'mcpc list'.
	Unusable string `json:"unusable,omitempty"`
}

func configCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "show the merged server configuration and where each server comes from",
		Description: `Prints every server that an invocation could use, after precedence (user
file, trusted project .mcp.json, --config / MCPC_CONFIG), with the file it
came from: a table with --text (the default on a terminal), every field with
--json. Header and env values are redacted. See 'mcpc help config'.`,
		Metadata: examples(
			"which file each server comes from", "mcpc config --text",
			"one server's entry, as JSON", `mcpc config -q 'servers.#(name=="everything").server'`,
			"add a server, then remove it", "mcpc config add web https://mcp.example.com/mcp && mcpc config remove web",
		),
		Commands: []*cli.Command{configAddCommand(st), configRemoveCommand(st), configImportCommand(st)},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			if cmd.Args().Len() > 0 {
				return usagef("", "unexpected argument %q", cmd.Args().First())
			}
			return st.runConfig(g)
		}),
	}
}

func (st *state) runConfig(g *globals) error {
	cfg, err := g.loadConfig()
	if err != nil {
		return err
	}
	rows := []configRow{}
	for _, name := range slices.Sorted(maps.Keys(cfg.Servers)) {
		e := cfg.Servers[name]
		row := configRow{Name: name, Source: e.SourceName(), Server: redact(e.Server)}
		if err := e.Server.Unusable(); err != nil {
			row.Unusable = err.Error()
		}
		rows = append(rows, row)
		st.entryNotes(g, e.Server, true)
	}
	if p := cfg.Project; p != nil && p.Err == nil && cfg.ProjectTrust != config.Trusted {
		textsafe.Note(st.env.Stderr, "project file %s is %s and was not loaded (mcpc trust)", p.Path, cfg.ProjectTrust)
	}
	return st.runIO(g).print(format.KindConfig, st.withUnusable(cfg, map[string]any{"servers": rows}))
}

// entryNotes says what mcpc does not use of a listed entry: why a loaded
// one is unusable, in a note; under --verbose, each key of another host's
// that it ignores.
func (st *state) entryNotes(g *globals, srv *config.Server, loaded bool) {
	if err := srv.Unusable(); err != nil && loaded {
		textsafe.Note(st.env.Stderr, "%s", err)
	}
	st.traceIgnored(g, srv)
}

// traceIgnored writes, under --verbose, the keys of another host's that
// mcpc ignores in srv's entry.
func (st *state) traceIgnored(g *globals, srv *config.Server) {
	if trace := g.trace(st.env.Stderr); trace != nil {
		for _, n := range srv.IgnoredNotes() {
			trace(n)
		}
	}
}

func redact(s *config.Server) *config.Server {
	c := *s
	if c.URL != "" {
		c.URL = urlx.Redact(c.URL)
	}
	if len(s.Env) > 0 {
		c.Env = map[string]string{}
		for k := range s.Env {
			c.Env[k] = redacted
		}
	}
	if len(s.Headers) > 0 {
		c.Headers = map[string]string{}
		for k := range s.Headers {
			c.Headers[k] = redacted
		}
	}
	return &c
}
