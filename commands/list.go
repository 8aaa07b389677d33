package commands

import (
	"context"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	clientstate "github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/creds"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// listOptions says what `mcpc list` shows: servers (no server), one kind
// of a server's features, or one feature described (name set).
type listOptions struct {
	server string
	kind   string // tools, resources, templates or prompts
	name   string
}

// noFilterFlag is list's and call's way past a server entry's includeTools
// and excludeTools.
var noFilterFlag = &cli.BoolFlag{Name: "no-filter", Usage: "show and allow the tools the server entry's includeTools/excludeTools hide (not for project files)"}

func listCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "list",
		Aliases:   []string{"ls"},
		Usage:     "list servers, a server's tools, resources, templates or prompts, or describe one",
		ArgsUsage: "[SERVER [tools|resources|templates|prompts] [NAME]] | --check [SERVER...]",
		Description: `Without SERVER: the configured servers with their transport, source file,
trust and (for HTTP servers with credentials) auth state. With SERVER: its
tools (or the named kind); every page is fetched.
With a NAME: that tool (or prompt, or resource template) described: its
annotations, every argument from its schema, and an example command line.
--json prints the complete result, schemas included.
A server entry's "includeTools" and "excludeTools" globs hide tools from the
list, from completion and from 'mcpc call'; --no-filter shows them, except
for a server from a project file.
With --check: connects to every configured server (or the named ones), at
most --parallel at once, each bounded by its connect timeout, and prints
each one's status (ok, needs login, auth failed, unreachable, timeout,
untrusted, disabled), revision, tool count and time. It never starts a
login, nor an untrusted or disabled server. The exit status is 0 when every
server checked is ok, else the most severe failure's (see 'mcpc help
exit-codes').`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "check", Usage: "connect to each server and report its health"},
			parallelFlag(),
			noFilterFlag,
		},
		Metadata: examples(
			"every configured server and where it comes from", "mcpc list",
			"the tools of a server, with their arguments", "mcpc list everything",
			"one tool: its arguments and an example call", "mcpc list everything echo",
			"a prompt's arguments", "mcpc list everything prompts simple-prompt",
			"the input schema of one tool, as JSON", "mcpc list everything echo --json -q inputSchema",
			"is every configured server up? (exit 0 when all are)", "mcpc list --check",
		),
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			parallel, err := readParallel(cmd)
			if err != nil {
				return err
			}
			if cmd.Bool("check") {
				return st.listCheck(ctx, g, cmd.Args().Slice(), parallel)
			}
			if cmd.IsSet("parallel") {
				return usagef("", "--parallel applies to --check only")
			}
			o, err := listArgs(g, cmd.Args().Slice())
			if err != nil {
				return err
			}
			return st.runList(ctx, g, o)
		}),
	}
}

// listArgs reads [SERVER] [KIND] [NAME]; a NAME that is not a kind word is
// a tool.
func listArgs(g *globals, args []string) (listOptions, error) {
	o := listOptions{kind: "tools"}
	if len(args) == 0 && !g.adhoc.IsStdio() {
		return o, nil
	}
	server, rest, err := target(g, args)
	if err != nil {
		return o, err
	}
	o.server = server
	if len(rest) > 0 && slices.Contains(client.ListKindWords(), rest[0]) {
		o.kind, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		o.name, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		return o, usagef("", "unexpected argument %q", rest[0])
	}
	if o.name != "" && o.kind == "resources" {
		return o, usagef("read a resource with: mcpc read SERVER URI", "cannot describe one resource")
	}
	return o, nil
}

func (st *state) runList(ctx context.Context, g *globals, o listOptions) error {
	switch {
	case o.server == "" && !g.adhoc.IsStdio():
		return st.listServers(ctx, g)
	case o.name != "":
		return st.describe(ctx, g, o)
	}
	return listServer(ctx, st.runIO(g), o.server, o.kind)
}

// listServer prints one list (what: tools, resources, templates, prompts)
// of a server.
func listServer(ctx context.Context, rio runIO, server, what string) error {
	sess, closeFn, err := rio.open(ctx, server)
	if err != nil {
		return err
	}
	defer closeFn()
	raw, err := sess.ListRaw(ctx, what)
	if err != nil {
		return err
	}
	kinds := map[string]format.Kind{
		"tools": format.KindToolList, "resources": format.KindResourceList,
		"templates": format.KindTemplateList, "prompts": format.KindPromptList,
	}
	return rio.printRaw(kinds[what], raw)
}

type serverRow struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Source    string `json:"source"`
	Trusted   bool   `json:"trusted"`
	// Active is false when a higher-precedence source defines the same
	// name, or when the project file is not trusted.
	Active bool `json:"active"`
	// Auth is how an active HTTP server authenticates and whether that
	// is ready (logged in, expires in …, needs login, VAR not set).
	Auth string `json:"auth,omitempty"`
	// Disabled is a "disabled": true entry: listed, never started.
	Disabled bool `json:"disabled,omitempty"`
	// Session says a live session holds the server (mcpc session).
	Session bool `json:"session,omitempty"`
	// Unusable is why mcpc cannot use the entry (it starts with the
	// file, line and column).
	Unusable string `json:"unusable,omitempty"`
}

// newServerRow is the row of one entry of file f.
func newServerRow(memo *clientstate.Memo, name string, f *config.File, trusted, active bool) serverRow {
	srv := f.Servers[name]
	r := serverRow{Name: name, Transport: client.TransportName(memo, srv), Source: f.Path, Trusted: trusted, Active: active, Disabled: srv.Disabled}
	if err := srv.Unusable(); err != nil {
		r.Unusable = err.Error()
	}
	return r
}

// listServers prints every configured server, including those of an
// untrusted project file (never started, but the user should see them).
func (st *state) listServers(ctx context.Context, g *globals) error {
	cfg, err := g.loadConfig()
	if err != nil {
		return err
	}
	rows := []serverRow{}
	seen := map[string]bool{}
	memo := clientstate.NewMemo(g.dirs.State, g.dirs.Cache)
	for i := len(cfg.Files) - 1; i >= 0; i-- {
		f := cfg.Files[i]
		for _, name := range f.Names {
			rows = append(rows, newServerRow(memo, name, f, true, !seen[name]))
			seen[name] = true
			st.entryNotes(g, f.Servers[name], true)
		}
	}
	if p := cfg.Project; p != nil && cfg.ProjectTrust != config.Trusted && p.Err == nil {
		for _, name := range p.Names {
			rows = append(rows, newServerRow(memo, name, p, false, false))
			st.entryNotes(g, p.Servers[name], false)
		}
	}
	sortRows(rows)
	// A keyring that fails (one that never answers costs its 10s bound)
	// is asked once, not once per server.
	c := st.credentials(g)
	c.Store = creds.StickyStore(c.Store)
	for i, r := range rows {
		if r.Active && !r.Disabled && r.Unusable == "" {
			rows[i].Auth = authState(ctx, c, cfg, r.Name)
			rows[i].Session = st.sessions(g).Holds(cfg, r.Name)
		}
	}
	return st.runIO(g).print(format.KindServerList, st.withUnusable(cfg, map[string]any{"servers": rows}))
}

// withUnusable adds to a listing the config files that were found but
// cannot be used: a note on stderr for each and, in the result, an
// "errors" array beside "servers" (absent when there is none, so that a
// listing without problems reads as it always has).
func (st *state) withUnusable(cfg *config.Config, result map[string]any) map[string]any {
	bad := cfg.Unusable()
	for _, u := range bad {
		textsafe.Note(st.env.Stderr, "%s", u.Note())
	}
	if len(bad) > 0 {
		result["errors"] = bad
	}
	return result
}

// sortRows orders rows by name, keeping precedence order within a name.
func sortRows(rows []serverRow) {
	slices.SortStableFunc(rows, func(a, b serverRow) int { return strings.Compare(a.Name, b.Name) })
}
