package commands

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/mcpc-dev/mcpc/client/conn"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/tasks"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/schemadiff"
	"github.com/mcpc-dev/mcpc/internal/termui"
)

// runIO is what a command's run function reaches of the invocation
// besides its options: the output (stdout under stdoutWriter's rule, and
// mcpc's rendering by the output flags), stderr for notes, and the
// servers through the one open path. A run function that takes it and
// its options, not the whole state and globals, says what it uses, and a
// unit test can hand it fakes.
type runIO struct {
	stderr io.Writer
	// write writes to stdout as it is (no formatting).
	write func(b []byte) error
	// print renders v by --json/--text, --query and the output bounds.
	print func(kind format.Kind, v any) error
	// printRaw renders b, a document as the server sent it, as print does.
	printRaw func(kind format.Kind, b []byte) error
	// printRawWith is printRaw with options a command adds for its kind
	// of output.
	printRawWith func(kind format.Kind, b []byte, more func(*format.Options)) error
	// line renders one JSON Lines record by --query and --max-bytes.
	line func(doc json.RawMessage) ([]byte, error)
	// open reaches a server by name or URL; closeFn ends what it started.
	open func(ctx context.Context, server string) (sess connection, closeFn func(), err error)
	// resolve and openEntry are open's two steps, for a command that
	// looks at the entry (its name, its transport) before connecting.
	resolve   func(server string) (*config.Entry, error)
	openEntry func(ctx context.Context, entry *config.Entry) (sess connection, closeFn func(), err error)
	// stdout is stdout itself, for a loop that stops making calls once
	// its reader went away (EPIPE), which write does not report.
	stdout io.Writer
	// progress shows one request's progress on stderr (on a terminal, or
	// anywhere when asked); stop ends it before the result is printed.
	progress func(asked bool) (stop func())
	// taskStatus shows a task's status message on the progress line.
	taskStatus func(*tasks.Task)
	// openTasks reaches entry's detached tasks (conn.OpenTasks), id's
	// session among them.
	openTasks func(ctx context.Context, entry *config.Entry, id string) (taskConnection, error)
	// each reaches several servers, at most parallel at once.
	each func(ctx context.Context, targets []client.Target, parallel int, visit visitFunc)
}

// visitFunc is what a many-server command does with one server: its
// session open since start, or the failure that kept it closed.
type visitFunc = func(ctx context.Context, i int, start time.Time, sess connection, err error)

// runIO is the invocation's: the state's streams and open path, the
// globals' output flags.
func (st *state) runIO(g *globals) runIO {
	conn := st.connector(g)
	p := format.Printer{Stdout: st.env.Stdout, Stderr: st.env.Stderr, Options: format.Options{
		Mode: g.mode, Query: g.query, MaxBytes: g.maxBytes, MaxLines: g.maxLines,
		Overflow: &format.Overflow{Dir: g.dirs.OverflowDir()}, Width: st.env.Width,
	}}
	return runIO{
		stderr: st.env.Stderr,
		stdout: st.env.Stdout,
		write: func(b []byte) error {
			_, err := st.env.Stdout.Write(b)
			return printed(st.env.Stdout, err)
		},
		print:    func(kind format.Kind, v any) error { return printed(st.env.Stdout, p.Print(kind, v, nil)) },
		printRaw: func(kind format.Kind, b []byte) error { return printed(st.env.Stdout, p.PrintRaw(kind, b, nil)) },
		printRawWith: func(kind format.Kind, b []byte, more func(*format.Options)) error {
			return printed(st.env.Stdout, p.PrintRaw(kind, b, more))
		},
		line: func(doc json.RawMessage) ([]byte, error) {
			o := p.Options // the same bounds and query; Line prints JSON
			o.Kind = format.KindCallTool
			return format.Line(st.env.Stderr, doc, o)
		},
		open:      conn.Open,
		resolve:   conn.Resolve,
		openEntry: conn.OpenEntry,
		progress: func(asked bool) func() {
			return st.progress.Start(progressTerm(st.env), asked)
		},
		taskStatus: func(t *tasks.Task) { st.progress.TaskStatus(t.Status, t.StatusMessage) },
		openTasks: func(ctx context.Context, entry *config.Entry, id string) (taskConnection, error) {
			opts, err := conn.ConnectOptions(ctx, entry)
			if err != nil {
				return nil, err
			}
			return st.dial().openTasks(ctx, entry, opts, id)
		},
		each: conn.Each,
	}
}

// reached is one server a command named, reached: its entry, its open
// session, the tools it asked for (reachOptions.tools) and the close
// function that ends the connection.
type reached struct {
	entry *config.Entry
	sess  connection
	tools []*mcp.Tool
	close func()
}

// reachOptions is what a command adds to the one way to a server it
// names: a refusal of the entry before anything is started, and the tools
// it lists before any call (client.OpenTools).
type reachOptions struct {
	refuse    func(*config.Entry) error
	listTools bool
	tools     []string
}

// entry resolves server and lets refuse (nil: none) turn the entry down
// before any connection: the prelude of every command that names one
// server and looks at its entry.
func (rio runIO) entry(server string, refuse func(*config.Entry) error) (*config.Entry, error) {
	e, err := rio.resolve(server)
	if err == nil && refuse != nil {
		err = refuse(e)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// reach resolves server and connects to it (rio.entry, then openEntry,
// then the tools o asks for).
func (rio runIO) reach(ctx context.Context, server string, o reachOptions) (*reached, error) {
	e, err := rio.entry(server, o.refuse)
	if err != nil {
		return nil, err
	}
	r := &reached{entry: e}
	if o.listTools {
		r.sess, r.tools, r.close, err = client.OpenTools(ctx, rio.openEntry, e, o.tools...)
	} else {
		r.sess, r.close, err = rio.openEntry(ctx, e)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// progressTerm is env's stderr, as progress is shown on it.
func progressTerm(env Env) termui.ProgressTerm {
	return termui.ProgressTerm{Stderr: env.Stderr, TTY: env.StderrTTY, Getenv: env.Getenv, Width: env.StderrWidth, Now: env.Now}
}

// structured says the output is mcpc's JSON (--json, or stdout not a
// terminal) or a --query of it, rather than text.
func (g *globals) structured() bool { return g.mode == format.ModeJSON || g.query != "" }

// takeSnapshot connects to the server and builds its snapshot.
func takeSnapshot(ctx context.Context, rio runIO, server string) (*schemadiff.Snapshot, error) {
	sess, closeFn, err := rio.open(ctx, server)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	var caps *mcp.ServerCapabilities
	if r := sess.initializeResult(); r != nil {
		caps = r.Capabilities
	}
	return client.Snapshot(ctx, sess, caps, sess.label())
}

// loginIO is the invocation's.
func (st *state) loginIO(g *globals) loginIO {
	return loginIO{runIO: st.runIO(g), creds: credentialsOf(st.env, g, st.secrets),
		sessionOptions: func(e *config.Entry) conn.ConnectOptions { return st.sessionOptions(g, e) },
		connect:        st.dial().connect}
}
