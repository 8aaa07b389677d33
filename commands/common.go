package commands

import (
	"context"
	"io"
	"path/filepath"
	"time"

	"github.com/mcpc-dev/mcpc/client/sessions"

	"github.com/mcpc-dev/mcpc/client/conn"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	clientstate "github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/buildinfo"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/termui"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// noMoreThan refuses the words of args past the first n: the one message
// for an argument a command does not take.
func noMoreThan(args []string, n int, hint string) error {
	if len(args) > n {
		return usagef(hint, "unexpected argument %q", args[n])
	}
	return nil
}

// justOne refuses args unless it is one word: what is what is missing
// when there is none, with hint.
func justOne(args []string, hint, what string) error {
	if len(args) == 0 {
		return usagef(hint, "missing %s", what)
	}
	return noMoreThan(args, 1, "")
}

// soleTarget is AdHoc.Target for a command that takes SERVER and nothing else.
func soleTarget(g *globals, args []string) (string, error) {
	server, rest, err := g.adhoc.Target(args)
	if err == nil {
		err = noMoreThan(rest, 0, "")
	}
	return server, err
}

// connector is the invocation's connect policy (client.Connector) with
// the flags of g: every command that reaches a server goes through it.
func (st *state) connector(g *globals) *client.Connector[connection] {
	return &client.Connector[connection]{
		Config: g.loadConfig, AdHoc: g.adhoc,
		NoFilter: g.noFilter, NoSession: g.noSession,
		ServerStderr: g.serverStderr, ServerStderrSet: g.serverStderrSet, Cwd: g.cwd,
		Stderr: st.env.Stderr, Secrets: st.secrets, Trace: g.trace(st.env.Stderr),
		Options:     func(e *config.Entry) conn.ConnectOptions { return st.sessionOptions(g, e) },
		Credentials: credentialsOf(st.env, g, st.secrets),
		Sessions:    st.sessions(g),
		Dial:        st.dial().connect,
		Interrupt:   errInterrupted,
	}
}

// sessions is the sessions as the invocation g sees them; a keepAlive
// entry's holder is started with g's flags that decide its entry.
func (st *state) sessions(g *globals) *sessions.Sessions {
	return &sessions.Sessions{
		Store: sessions.SessionStore(g.dirs.State, st.env.Getenv("XDG_RUNTIME_DIR")),
		Cwd:   g.cwd, Environ: st.env.Environ, Notes: st.env.Stderr, Now: st.env.Now,
		Config: g.loadConfig, AdHoc: g.adhoc,
		HolderArgs: client.HolderLine{Program: st.argv[0], ConfigFiles: g.configFiles, Protocol: g.adhoc.Protocol,
			ConnectTimeout: g.connectTimeout, ConnectTimeoutSet: g.connectTimeoutSet,
			ProbeTimeout: g.probeTimeout, MaxMessage: g.maxMessage, Headers: g.adhoc.Headers, BearerEnv: g.adhoc.BearerEnv}.Args,
	}
}

// dial is the connector of the invocation.
func (st *state) dial() connector {
	if st.env.connector != nil {
		return st.env.connector
	}
	return clientConnector{}
}

// sessionOptions is the one builder of conn.ConnectOptions from the
// flags, for every command that connects; login overrides only what a
// login must.
func (st *state) sessionOptions(g *globals, entry *config.Entry) conn.ConnectOptions {
	connectTimeout := g.connectTimeout
	if t := time.Duration(entry.Server.Timeout); t > 0 && !g.connectTimeoutSet {
		connectTimeout = t
	}
	credentialsOf(st.env, g, st.secrets).RegisterEntrySecrets(entry, g.cwd)
	return conn.ConnectOptions{
		Getenv:         st.env.Getenv,
		Environ:        st.env.Environ(),
		Cwd:            g.cwd,
		ConnectTimeout: connectTimeout,
		ProbeTimeout:   g.probeTimeout,
		MaxMessage:     g.maxMessage,
		IdleTimeout:    g.idleTimeout,
		Protocol:       g.adhoc.Protocol,
		Transport:      g.transport,
		Version:        buildinfo.Name(),
		Memo:           clientstate.NewMemo(g.dirs.State, g.dirs.Cache),
		// A recording holds what the server said: no answer from the
		// results cache, which would leave the exchange out of it.
		NoCache:   g.noCache || g.recorder != nil,
		Record:    g.recorder,
		NoFilter:  g.noFilter,
		Reprobe:   g.reprobe,
		Verbose:   g.trace(st.env.Stderr),
		TraceMeta: client.TraceContext(st.env.Getenv, g.trace(st.env.Stderr)),
		Progress:  st.progress.Notify,
		Input:     g.input.Input(st.env.Stdin, st.env.Stderr, g.jsonFlag, st.progress.Pause),
		StartUp:   &termui.StartUp{Display: st.progress, Term: progressTerm(st.env), Secrets: st.secrets},
	}
}

// printed applies the output contract to what rendering to stdout
// returned: stdout's reader gone away is no failure (stdoutWriter's one
// rule, readerLeft; any EPIPE for a plain writer), and what format
// refuses is mapped to the error model.
func printed(stdout io.Writer, err error) error {
	if err == nil {
		return nil
	}
	if sw, ok := stdout.(*stdoutWriter); ok && sw.readerLeft(err) || !ok && readerGone(err) {
		return nil
	}
	return format.QueryUsage(err)
}

// ctxErr is the error to report of err, given how the invocation ended
// (fail.FromContext with this invocation's interrupt).
func ctxErr(ctx context.Context, err error) error { return fail.FromContext(ctx, err, errInterrupted) }

// serverAction wraps an action that needs globals and a timeout-bounded
// context.
func (st *state) serverAction(run func(ctx context.Context, cmd *cli.Command, g *globals) error) cli.ActionFunc {
	return func(ctx context.Context, cmd *cli.Command) error {
		g, err := st.readGlobals(cmd)
		if err != nil {
			return err
		}
		if err := st.openRecord(g); err != nil {
			return err
		}
		defer st.closeRecord(g)
		ctx, cancel := g.withTimeout(ctx)
		defer cancel()
		return ctxErr(ctx, run(ctx, cmd, g))
	}
}

// openRecord starts --record's file before anything connects: a path
// that cannot be written is a usage error before any server starts.
func (st *state) openRecord(g *globals) error {
	if g.record == "" {
		return nil
	}
	path := g.record
	if !filepath.IsAbs(path) {
		path = filepath.Join(g.cwd, path)
	}
	r, err := transport.CreateRecorder(path, transport.RecordOptions{Secrets: st.secrets,
		MaxMessage: g.maxMessage, MaxFile: g.recordMax, Client: buildinfo.Name(), Now: st.env.Now})
	if err != nil {
		return usagef("give a file in a directory that exists and you can write", "cannot write the --record file %s: %v", g.record, fsx.Reason(err))
	}
	g.recorder = r
	return nil
}

// closeRecord puts the recording in place; a failure to is told on
// stderr, the invocation's outcome being the request's.
func (st *state) closeRecord(g *globals) {
	if err := g.recorder.Close(); err != nil {
		textsafe.Note(st.env.Stderr, "the --record file %s was not written: %v", g.record, err)
	}
}

// trace is where --verbose trace lines go (textsafe.Tracer), nil without
// --verbose.
func (g *globals) trace(stderr io.Writer) func(string) {
	if !g.verbose {
		return nil
	}
	return textsafe.Tracer(stderr)
}
