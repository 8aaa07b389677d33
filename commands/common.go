package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	clientstate "github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/buildinfo"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// target splits positional arguments into the SERVER argument and the rest.
// With --stdio or -- the server is on the command line, so no SERVER word.
func target(g *globals, args []string) (server string, rest []string, err error) {
	if g.adhoc.IsStdio() {
		if len(args) > 0 && config.IsURL(args[0]) {
			return "", nil, usagef("", "give either a server URL or a --stdio command, not both")
		}
		return "", args, nil
	}
	if len(args) == 0 {
		return "", nil, usagef("name a configured server, an https:// URL, or give --stdio 'command args'", "missing SERVER")
	}
	return args[0], args[1:], nil
}

// soleTarget is target for a command that takes SERVER and nothing else.
func soleTarget(g *globals, args []string) (string, error) {
	server, rest, err := target(g, args)
	if err == nil && len(rest) > 0 {
		err = usagef("", "unexpected argument %q", rest[0])
	}
	return server, err
}

// connector is the invocation's connect policy (client.Connector) with
// the flags of g: every command that reaches a server goes through it.
func (st *state) connector(g *globals) *client.Connector[session] {
	return &client.Connector[session]{
		Config: g.loadConfig, AdHoc: g.adhoc,
		NoFilter: g.noFilter, NoSession: g.noSession,
		ServerStderr: g.serverStderr, ServerStderrSet: g.serverStderrSet, Cwd: g.cwd,
		Stderr: st.env.Stderr, Secrets: st.secrets, Trace: st.verboseFunc(g),
		Options:      func(e *config.Entry) client.ConnectOptions { return st.sessionOptions(g, e) },
		Credentials:  st.credentials(g),
		Sessions:     st.sessions(g),
		Dial:         st.dial().connect,
		Interrupt:    errInterrupted,
		AdhocSession: st.adhocSession,
	}
}

// sessionOptions is the one builder of client.ConnectOptions from the
// flags, for every command that connects; login overrides only what a
// login must.
func (st *state) sessionOptions(g *globals, entry *config.Entry) client.ConnectOptions {
	connectTimeout := g.connectTimeout
	if t := time.Duration(entry.Server.Timeout); t > 0 && !g.connectTimeoutSet {
		connectTimeout = t
	}
	st.credentials(g).RegisterEntrySecrets(entry, g.cwd)
	return client.ConnectOptions{
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
		NoCache:        g.noCache,
		NoFilter:       g.noFilter,
		Reprobe:        g.reprobe,
		Verbose:        st.verboseFunc(g),
		TraceMeta:      client.TraceContext(st.env.Getenv, st.verboseFunc(g)),
		Progress:       st.progress.Notify,
		Input:          st.clientInput(g),
	}
}

// print renders one result object of mcpc's own under the output contract.
func (st *state) print(g *globals, kind format.Kind, v any) error {
	return st.printWith(g, kind, v, nil)
}

// printWith is print with options a command adds for its kind of output.
func (st *state) printWith(g *globals, kind format.Kind, v any, more func(*format.Options)) error {
	// No HTML escaping: "<" in a tool's text must reach the user as "<".
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("cannot encode the result: %w", err)
	}
	return st.printRawWith(g, kind, bytes.TrimSuffix(buf.Bytes(), []byte("\n")), more)
}

// printRaw renders a result as the server sent it under the output
// contract.
func (st *state) printRaw(g *globals, kind format.Kind, b []byte) error {
	return st.printRawWith(g, kind, b, nil)
}

// printRawWith is printRaw with options a command adds for its kind of
// output.
func (st *state) printRawWith(g *globals, kind format.Kind, b []byte, more func(*format.Options)) error {
	opts := format.Options{
		Mode:     g.mode,
		Kind:     kind,
		Query:    g.query,
		MaxBytes: g.maxBytes,
		MaxLines: g.maxLines,
		Overflow: &format.Overflow{Dir: g.dirs.OverflowDir()},
		Width:    st.env.Width,
	}
	if more != nil {
		more(&opts)
	}
	if err := format.Write(st.env.Stdout, st.env.Stderr, b, opts); err != nil && !readerGone(err) {
		return outputError(err)
	}
	return nil
}

// writeStdout writes what a command prints as it is (no formatting),
// under stdoutWriter's rule.
func (st *state) writeStdout(b []byte) error {
	if _, err := st.env.Stdout.Write(b); err != nil && !readerGone(err) {
		return err
	}
	return nil
}

// outputError is the one mapping of what format.Write refuses to the
// error model: a --query that fails (before any work, or on a result it
// yields no JSON from) is a usage error.
func outputError(err error) error {
	var qe *format.QueryError
	if errors.As(err, &qe) {
		return usagef("see https://github.com/tidwall/gjson/blob/master/SYNTAX.md", "invalid --query %q: %s", qe.Query, qe.Reason)
	}
	return err
}

// ctxErr turns an invocation-level cancellation into the error to report.
func ctxErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, errInterrupted) {
		if fail.CodeOf(err) == fail.Interrupted {
			return err // says what the interrupt did (a task cancelled)
		}
		return errInterrupted
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && fail.CodeOf(err) != fail.Timeout {
		return fail.Deadline(err)
	}
	return err
}

// serverAction wraps an action that needs globals and a timeout-bounded
// context.
func (st *state) serverAction(run func(ctx context.Context, cmd *cli.Command, g *globals) error) cli.ActionFunc {
	return func(ctx context.Context, cmd *cli.Command) error {
		g, err := st.readGlobals(cmd)
		if err != nil {
			return err
		}
		ctx, cancel := g.withTimeout(ctx)
		defer cancel()
		return ctxErr(ctx, run(ctx, cmd, g))
	}
}

// verboseFunc is where --verbose trace lines go: stderr, escape-stripped
// (they quote server text).
func (st *state) verboseFunc(g *globals) func(string) {
	if !g.verbose {
		return nil
	}
	return func(line string) {
		fmt.Fprintf(st.env.Stderr, "mcpc: trace: %s\n", textsafe.StripControl(line))
	}
}
