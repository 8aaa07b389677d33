package commands

import (
	"context"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/listkind"
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
		Usage:     "list servers, a server's " + kindsOr() + ", or describe one",
		ArgsUsage: listUsage() + " | --check [SERVER...]",
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
		Metadata: helptext.Examples(
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
				targets, err := st.connector(g).Targets(cmd.Args().Slice(), g.memo())
				if err != nil {
					return err
				}
				o := checkOptions{targets: targets, parallel: parallel, text: g.mode == format.ModeText}
				return runCheck(ctx, st.runIO(manyGlobals(g)), o)
			}
			if cmd.IsSet("parallel") {
				return usagef("", "--parallel applies to --check only")
			}
			o, err := listArgs(g, cmd.Args().Slice())
			if err != nil {
				return err
			}
			rio := st.runIO(g)
			switch {
			case o.server == "" && !g.adhoc.IsStdio():
				return runServerList(ctx, rio, g.loadConfig, client.ServerList{Memo: g.memo(),
					Credentials: credentialsOf(st.env, g, st.secrets), Sessions: st.sessions(g),
					Entry: func(srv *config.Server, loaded bool) { entryNotes(st.env.Stderr, g.trace(st.env.Stderr), srv, loaded) }})
			case o.name != "":
				// A description's example names the server as this
				// command line did.
				ex := format.ExampleOf(o.server, g.adhoc.Stdio, g.adhoc.Argv)
				printRawWith := rio.printRawWith
				rio.printRaw = func(kind format.Kind, b []byte) error {
					return printRawWith(kind, b, func(fo *format.Options) { fo.Example = ex })
				}
				return runDescribe(ctx, rio, o)
			}
			return listServer(ctx, rio, o.server, o.kind)
		}),
	}
}

// listUsage is list's arguments but --check's, the kinds from the one
// table (listkind.Kinds).
func listUsage() string { return "[SERVER [" + listkind.Alternatives() + "] [NAME]]" }

// kindsOr are the kind words as a sentence says them: "tools, resources,
// templates or prompts".
func kindsOr() string {
	w := listkind.Words()
	return strings.Join(w[:len(w)-1], ", ") + " or " + w[len(w)-1]
}

// listArgs reads [SERVER] [KIND] [NAME]; a NAME that is not a kind word is
// a tool.
func listArgs(g *globals, args []string) (listOptions, error) {
	o := listOptions{kind: "tools"}
	if len(args) == 0 && !g.adhoc.IsStdio() {
		return o, nil
	}
	server, rest, err := g.adhoc.Target(args)
	if err != nil {
		return o, err
	}
	o.server = server
	if len(rest) > 0 && slices.Contains(listkind.Words(), rest[0]) {
		o.kind, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		o.name, rest = rest[0], rest[1:]
	}
	if err := noMoreThan(rest, 0, ""); err != nil {
		return o, err
	}
	if o.name != "" && o.kind == "resources" {
		return o, usagef("read a resource with: mcpc read SERVER URI", "cannot describe one resource")
	}
	return o, nil
}

// listServer prints one list (what: tools, resources, templates, prompts)
// of a server.
func listServer(ctx context.Context, rio runIO, server, what string) error {
	sess, closeFn, err := rio.open(ctx, server)
	if err != nil {
		return err
	}
	defer closeFn()
	if caps := sess.initializeResult().Capabilities; !listkind.Declared(caps, what) {
		// An empty list, as the server has none to give: not its
		// rejection of a request mcpc need not have sent.
		textsafe.Note(rio.stderr, "%s", undeclaredNote(sess.label(), what))
	}
	raw, err := sess.ListRaw(ctx, what)
	if err != nil {
		return err
	}
	return rio.printRaw(format.ListKind(what), raw)
}

// undeclaredNote says that the server named label declares no list of the
// kind what (a word of listkind.Kinds): by the capability it lacks, and
// the list when that names it otherwise.
func undeclaredNote(label, what string) string {
	k, _ := listkind.Of(what)
	if k.Capability != k.Items {
		return label + " declares no " + k.Capability + ", so no " + k.Items
	}
	return label + " declares no " + k.Items
}

// runDescribe shows one tool, prompt or resource template: in text, what a
// person needs to call it; in JSON, the definition exactly as the server
// sent it.
func runDescribe(ctx context.Context, rio runIO, o listOptions) error {
	sess, closeFn, err := rio.open(ctx, o.server)
	if err != nil {
		return err
	}
	defer closeFn()
	raw, err := sess.ListRaw(ctx, o.kind)
	if err != nil {
		return err
	}
	item, err := client.DescribedItem(sess, raw, o.kind, o.name, sess.label())
	if err != nil {
		return err
	}
	return rio.printRaw(format.ItemKind(o.kind), item)
}

// runServerList prints every configured server (config loads them).
func runServerList(ctx context.Context, rio runIO, config func() (*config.Config, error), l client.ServerList) error {
	cfg, err := config()
	if err != nil {
		return err
	}
	return rio.print(format.KindServerList, withUnusable(rio.stderr, cfg, map[string]any{"servers": l.Rows(ctx, cfg)}))
}

// withUnusable adds to a listing the config files that were found but
// cannot be used: a note on stderr for each and, in the result, an
// "errors" array beside "servers" (absent when there is none, so that a
// listing without problems reads as it always has).
func withUnusable(stderr io.Writer, cfg *config.Config, result map[string]any) map[string]any {
	bad := cfg.Unusable()
	for _, u := range bad {
		textsafe.Note(stderr, "%s", u.Note())
	}
	if len(bad) > 0 {
		result["errors"] = bad
	}
	return result
}

// checkOptions are what mcpc list --check checks: the servers picked
// (client.Connector.Targets), how many at once, and whether failures are
// also noted on stderr (text output; JSON has them in the rows).
type checkOptions struct {
	targets  []client.Target
	parallel int
	text     bool
}

// runCheck connects to every target (at most parallel at once), has
// client.Checks measure each, and prints a row per server. It never
// starts a login (the open path uses only a stored one) nor a server that
// is untrusted or disabled.
func runCheck(ctx context.Context, rio runIO, o checkOptions) error {
	checks := client.NewChecks(o.targets, errInterrupted)
	rio.each(ctx, o.targets, o.parallel, func(ctx context.Context, i int, start time.Time, sess connection, err error) {
		var init *mcp.InitializeResult
		if err == nil {
			init = sess.initializeResult()
		}
		checks.Measure(ctx, i, start, init, sess, err)
	})
	rows := checks.Done(ctx)
	if err := rio.print(format.KindServerCheck, map[string]any{"servers": rows}); err != nil {
		return err
	}
	var notes io.Writer
	if o.text {
		notes = rio.stderr
	}
	return ctxErr(ctx, client.CheckResult(notes, rows))
}
