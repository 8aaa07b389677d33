package client

import (
	"cmp"
	"context"
	"errors"
	"io"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/credentials"
	"github.com/mcpc-dev/mcpc/client/sessions"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Ender is what Connector needs of a connection it opened: a way to end
// it as the invocation ends (conn.Conn.End).
type Ender interface {
	End(ctx context.Context, interrupted bool)
}

// Connector is the one connect policy of an invocation: a target resolved
// to an entry (or to a --stdio session named on the command line), the
// project-trust rules, routing through a running session, the stored
// credential, and the connect itself. A command reads its flags into one
// and calls Open; S is the connection type Dial makes (a *conn.Conn wrapper in
// mcpc, a fake in unit tests).
type Connector[S Ender] struct {
	// Config loads the configuration; AdHoc is the server the command
	// line gives (--stdio, a URL).
	Config func() (*config.Config, error)
	AdHoc  config.AdHoc
	// NoFilter (--no-filter) is refused for a project file's server;
	// NoSession (--no-session) connects directly, past any session.
	NoFilter, NoSession bool
	// ServerStderr and ServerStderrSet are --server-stderr and whether it
	// was given (see ServerStderr); Cwd is the working directory.
	ServerStderr    string
	ServerStderrSet bool
	Cwd             string
	// Stderr takes the notes (an untrusted project, a stdio server's
	// stderr when shown); Secrets are what it must not show.
	Stderr  io.Writer
	Secrets *redact.Set
	// Trace writes a --verbose line; nil without --verbose.
	Trace func(string)
	// Options are the settings from the flags for reaching entry, before
	// its credential.
	Options     func(entry *config.Entry) conn.ConnectOptions
	Credentials credentials.Credentials
	Sessions    *sessions.Sessions
	Dial        func(ctx context.Context, e *config.Entry, o conn.ConnectOptions) (S, error)
	// Interrupt is the context cause that means the user interrupted:
	// the close function then lets the cancellation reach the server.
	Interrupt error

	// adhocSession is, once Resolve has found it, the entry that stands
	// for a --stdio session named on the command line: OpenEntry reaches
	// that entry only through its session. It is the connector's own, so
	// Resolve and OpenEntry of one connector agree and nothing else sees it.
	adhocSession *config.Entry
}

// Open resolves server and connects to it. The close function tears the
// connection down (after an interrupt, first letting the cancellation
// reach the server).
func (c *Connector[S]) Open(ctx context.Context, server string) (S, func(), error) {
	entry, err := c.Resolve(server)
	if err != nil {
		var zero S
		return zero, nil, err
	}
	return c.OpenEntry(ctx, entry)
}

// Resolve finds the named server in the configuration (or on the command
// line), noting an untrusted project's server it had to leave out.
func (c *Connector[S]) Resolve(server string) (*config.Entry, error) {
	cfg, err := c.Config()
	if err != nil {
		return nil, err
	}
	entry, err := cfg.Resolve(server, c.AdHoc)
	if err != nil {
		if e := c.adhocSessionEntry(server); e != nil && fail.CodeOf(err) == fail.Config {
			return e, nil
		}
		if fail.CodeOf(err) == fail.Config && !c.NoSession && c.Sessions != nil {
			if rerr := c.Sessions.RemovedEntry(cfg, server); rerr != nil {
				return nil, rerr
			}
		}
		return nil, err
	}
	if note := cfg.UntrustedNote(entry.Name); note != "" && entry.File != nil {
		textsafe.Note(c.Stderr, "%s", note)
	}
	if c.Trace != nil {
		for _, n := range entry.Server.IgnoredNotes() {
			c.Trace(n)
		}
	}
	return entry, nil
}

// adhocSessionEntry is the entry that stands for a session started with
// --name and --stdio, when server names one (and no configured server
// does): such a session is reached by its name.
func (c *Connector[S]) adhocSessionEntry(server string) *config.Entry {
	if c.NoSession || c.AdHoc.IsStdio() || server == "" || config.IsURL(server) {
		return nil
	}
	e := c.Sessions.AdhocEntry(server)
	if e != nil {
		c.adhocSession = e
	}
	return e
}

// ConnectOptions are the settings for reaching entry's server with its
// stored credential: Options, then the OAuth handler.
func (c *Connector[S]) ConnectOptions(ctx context.Context, entry *config.Entry) (conn.ConnectOptions, error) {
	opts := c.Options(entry)
	err := c.Credentials.Apply(ctx, entry, &opts)
	return opts, err
}

// filterKept refuses --no-filter for a project file's server. Trusting
// a project file trusts its filters too: a filter may be why the servers
// it starts were deemed safe to run.
func (c *Connector[S]) filterKept(entry *config.Entry) error {
	if c.NoFilter && entry.File != nil && entry.File.Source == config.SourceProject {
		return fail.New(fail.Config, "the filter may be why the project was trusted; to see every tool, define the server in your user config",
			"--no-filter is refused for server %q: it comes from the project file %s", entry.Name, entry.File.Path)
	}
	return nil
}

// OpenEntry connects to a server Resolve has found, as Open does.
func (c *Connector[S]) OpenEntry(ctx context.Context, entry *config.Entry) (S, func(), error) {
	var zero S
	if err := c.filterKept(entry); err != nil {
		return zero, nil, err
	}
	sw, err := ServerStderr(entry, c.ServerStderr, c.ServerStderrSet, c.Cwd, c.Stderr, c.Secrets)
	if err != nil {
		return zero, nil, err
	}
	opts, err := c.ConnectOptions(ctx, entry)
	if err != nil {
		return zero, nil, err
	}
	if opts.Held, err = c.held(ctx, entry, opts); err != nil {
		return zero, nil, err
	}
	if sw != nil { // a nil *termui.StderrWriter must not become a non-nil io.Writer
		opts.ServerStderr = sw
	}
	sess, err := c.Dial(ctx, entry, opts)
	if err != nil && opts.Held != nil {
		sess, err = c.reconnectKeptAlive(ctx, entry, opts, err)
	}
	if err != nil {
		if sw != nil {
			sw.Close()
		}
		return zero, nil, err
	}
	closeFn := func() {
		sess.End(ctx, c.Interrupt != nil && errors.Is(context.Cause(ctx), c.Interrupt))
		if sw != nil {
			sw.Close()
		}
	}
	return sess, closeFn, nil
}

// held is the live session of entry to use, nil when there is none or
// NoSession.
func (c *Connector[S]) held(ctx context.Context, entry *config.Entry, opts conn.ConnectOptions) (*conn.Held, error) {
	if c.NoSession {
		return nil, nil
	}
	return c.Sessions.Held(ctx, entry, opts, c.adhocSession != nil && entry == c.adhocSession)
}

// reconnectKeptAlive retries, once, a connect that failed through a
// keepAlive entry's session: one that ended between keepAlive's look and
// the connect (its holder or server killed just then) is started again,
// with the note, and reached; any other failure stands.
func (c *Connector[S]) reconnectKeptAlive(ctx context.Context, entry *config.Entry, opts conn.ConnectOptions, err error) (S, error) {
	var zero S
	if _, started, kerr := c.Sessions.KeepAlive(ctx, entry, true); kerr != nil || !started {
		return zero, cmp.Or(kerr, err)
	}
	if opts.Held, err = c.held(ctx, entry, opts); err != nil {
		return zero, err
	}
	return c.Dial(ctx, entry, opts)
}
