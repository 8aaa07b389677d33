package client

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/hold"
	"github.com/mcpc-dev/mcpc/client/serve"
	"github.com/mcpc-dev/mcpc/client/sessions"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// ServeUpstream is server, a SERVER argument, as mcpc serve lends it.
// A configured server is reached through its live session; without one,
// serve holds the session itself for its lifetime (its record names
// serve, so other invocations attach to it too, and it ends with serve,
// its server with it, even when serve is killed: the server's group is
// guarded). With NoSession, or for an ad-hoc target, serve holds the
// server itself without a session. A client of the era the session does
// not speak gets a connection of its own era, held by serve (the one
// case a stateful server's state is not shared: mcpc help serve).
// done ends what serve started.
func (c *Connector[S]) ServeUpstream(ctx context.Context, server string) (u *serve.Upstream, done func(), err error) {
	entry, err := c.Resolve(server)
	if err != nil {
		return nil, nil, err
	}
	if err := c.filterKept(entry); err != nil {
		return nil, nil, err
	}
	if entry.File == nil && c.Secrets != nil {
		// An ad-hoc command line is no host's to read (a token passed as
		// an argument): what serve forwards names it without its
		// arguments' values.
		for _, a := range entry.Server.Args {
			// A flag's name is no secret; its value may be (--token=…).
			if name, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(name, "-") {
				c.Secrets.Add(v)
			} else if !strings.HasPrefix(a, "-") {
				c.Secrets.Add(a)
			}
		}
	}
	opts, err := c.ConnectOptions(ctx, entry)
	if err != nil {
		return nil, nil, err
	}
	// A server serve holds itself writes its stderr where --server-stderr
	// says, as a one-shot's does (a session's, to its log).
	sw, err := ServerStderr(entry, c.ServerStderr, c.ServerStderrSet, c.Cwd, c.Stderr, c.Secrets)
	if err != nil {
		return nil, nil, err
	}
	closeStderr := func() {}
	if sw != nil {
		// Closed once the server has ended: its last line without a
		// newline is written, and a --server-stderr FILE closed.
		opts.ServerStderr, closeStderr = sw, sw.Close
	}
	u = &serve.Upstream{Name: entry.Label(), Server: entry.Name, Limit: conn.MessageLimit(entry, opts),
		Hold: func(ctx context.Context, era serve.Era) (*conn.Conn, error) {
			o := opts
			o.Protocol, o.Input, o.GuardGroup = era.Protocol(), hold.HolderInput(), true
			return conn.Connect(ctx, entry, o)
		},
		Log: func(msg string) { textsafe.Note(c.Stderr, "%s", msg) }}
	if !c.NoFilter && entry.Server.HasToolFilter() {
		u.Hidden = entry.Server.ToolFilteredBy
	}
	if c.NoSession || entry.File == nil {
		return u, func() { u.Close(); closeStderr() }, nil
	}
	end, err := c.servedSession(ctx, entry, u)
	if err != nil {
		closeStderr()
		return nil, nil, err
	}
	return u, func() { u.Close(); end(); closeStderr() }, nil
}

// servedSession points u at entry's session: the live one, or one serve
// holds until end.
func (c *Connector[S]) servedSession(ctx context.Context, entry *config.Entry, u *serve.Upstream) (end func(), err error) {
	s := c.Sessions
	unlock, err := s.Store.Lock(ctx, entry.Name)
	if err != nil {
		return nil, fmt.Errorf("cannot lock session %s: %w", textsafe.Name(entry.Name), err)
	}
	defer unlock()
	rec, err := s.Running(ctx, entry.Name)
	if err != nil {
		return nil, err
	}
	if rec != nil {
		// What an attached invocation is refused, serve is: a session of
		// another definition, or holding its server with other credentials.
		if rec.Entry != sessions.EntryIdentity(entry, entry.Name) {
			return nil, fail.New(fail.Usage, "stop it first ('mcpc session stop "+shellwords.Quote(entry.Name)+"'), or serve with --no-session",
				"session %s is running and holds another entry of that name (%s)", textsafe.Name(entry.Name), textsafe.Name(rec.Server))
		}
		if rec.Def != "" && rec.Def != conn.SessionKey(entry, "") {
			textsafe.Note(s.Notes, "session %s runs an older definition of %s: 'mcpc session stop %s' lets serve hold the current one",
				textsafe.Name(entry.Name), textsafe.Name(entry.Name), shellwords.Quote(entry.Name))
		}
		opts, err := c.ConnectOptions(ctx, entry)
		if err == nil {
			err = s.SameCredentials(entry, rec, opts)
		}
		if err != nil {
			return nil, err
		}
		u.Session, u.SessionEra = rec.Socket, serve.EraOf(rec.Revision)
		return func() {}, nil
	}
	if err := s.Prepare(entry.Name); err != nil {
		return nil, err
	}
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	reported, held := make(chan sessions.HolderReport, 1), make(chan error, 1)
	go func() {
		held <- s.Hold(hctx, sessions.HoldOptions{Entry: entry, Name: entry.Name, IdleText: "0s", Secrets: c.Secrets, Served: true,
			Connect: func(ctx context.Context) (conn.ConnectOptions, error) { return c.ConnectOptions(ctx, entry) },
			Report:  func(rep sessions.HolderReport) { reported <- rep }})
	}()
	select {
	case rep := <-reported:
		if rep.Record == nil {
			cancel()
			<-held
			if f := rep.Error.Raise(nil); f != nil {
				return nil, f
			}
			return nil, fail.New(fail.Internal, "", "the session serve holds ended before it served")
		}
		u.Session, u.SessionEra = rep.Record.Socket, serve.EraOf(rep.Record.Revision)
	case err := <-held:
		cancel()
		if err == nil {
			err = fail.New(fail.Internal, "", "the session serve holds ended before it served")
		}
		return nil, err
	case <-ctx.Done():
		cancel()
		<-held
		return nil, context.Cause(ctx)
	}
	return func() { cancel(); <-held }, nil
}
