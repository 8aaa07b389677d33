package conn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/input"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/termui"
	"github.com/mcpc-dev/mcpc/internal/units"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// ConnectOptions are the per-invocation settings for reaching a server.
type ConnectOptions struct {
	Getenv         func(string) string
	Environ        []string  // environment a stdio server inherits
	Cwd            string    // working directory of mcpc
	ServerStderr   io.Writer // where a stdio server's stderr goes; nil hides it
	ConnectTimeout time.Duration
	ProbeTimeout   time.Duration // bound of the server/discover probe (0: default)
	MaxMessage     int64         // bytes in one message from the server (0: the entry's, or DefaultMaxMessage)
	// IdleTimeout bounds each request the server neither answers nor
	// sends anything on (progress, logs) for that long; 0: no bound.
	IdleTimeout time.Duration
	Protocol    string // overrides the entry's "protocol" when set
	// Transport pins an HTTP server's transport (--transport): "sse",
	// "http" (or "streamable-http"), or "" / "auto" for the entry's pin,
	// else the remembered transport, else Streamable HTTP falling back to
	// HTTP+SSE.
	Transport string
	Version   string      // mcpc's version, sent as clientInfo
	Memo      *state.Memo // era verdicts and cached results; nil: none
	NoCache   bool        // do not answer requests from cached results
	// Reprobe forgets what is remembered about the server (its era
	// verdict and cached results) and probes afresh: mcpc reconnect.
	Reprobe bool
	// Verbose receives one line per traced event (--verbose); nil: off.
	Verbose func(line string)
	// TraceMeta is added to every request's _meta (W3C trace context).
	TraceMeta map[string]string
	// Progress, when set, receives the server's progress notifications
	// (every tools/call carries a progress token).
	Progress func(*mcp.ProgressNotificationParams)
	Input    *input.Input // answers to what the server asks; nil offers nothing
	// Pushed, when set, is told of what the server pushes besides logs
	// and progress (mcpc watch): a list's change ("list", the family:
	// tools, prompts or resources) and a resource's update ("resource",
	// its URI). Set, it also has the SDK open a 2026-07-28 server's
	// subscriptions/listen stream for the list changes it offers.
	Pushed func(kind, name string)
	// Lost, when set, is told of the notifications a session's holder
	// dropped for this invocation (a reader slower than the server),
	// instead of a note on stderr for each time it did.
	Lost func(n int64)
	// Resumed, when set, is told each time an HTTP event stream that
	// dropped is reconnected, with the Last-Event-ID it resumes after
	// ("" when the server's events have none).
	Resumed func(lastEventID string)
	// StartUp, when set, shows a stdio server's start on a terminal's
	// live line while it is waited for (startUp).
	StartUp *termui.StartUp
	// stderrLine is given the server's stderr lines while it starts.
	stderrLine func(string)
	// OAuthHandler, for HTTP servers, supplies tokens (a stored login,
	// or a login in progress); see package creds.
	OAuthHandler auth.OAuthHandler
	// WrapHTTP, when set, wraps the transport every HTTP request to the
	// server goes through, under mcpc's own (headers, redirects, limits,
	// trace): the credentials' transport, for tokens that need more than
	// the SDK's "Authorization: Bearer" (DPoP proofs; see creds.WrapHTTP).
	WrapHTTP func(http.RoundTripper) http.RoundTripper
	// CredentialID names the credential OAuthHandler serves (never a
	// secret: its tokens rotate, the login does not), so private cached
	// results stay with it.
	CredentialID string
	// NoFilter shows and allows the tools the entry's includeTools and
	// excludeTools hide (--no-filter; refused for project files).
	NoFilter bool
	// Held, when set, reaches the server through the holder of a live
	// session (mcpc session) instead of starting it.
	Held *Held
	// Record, when set, records every message of the connection
	// (--record FILE, a session's "record"; transport.Recorder).
	Record *transport.Recorder
	// GuardGroup starts a stdio server with a guard of its process group
	// (transport.Process.Guard): a holder's, which outlives invocations
	// and may be killed outright.
	GuardGroup bool
}

// Transports are what --transport may pin.
var Transports = []string{"auto", "http", "sse"}

// DefaultConnectTimeout is generous because npx- and uvx-launched servers
// often download and compile before they answer.
const DefaultConnectTimeout = 60 * time.Second

// DefaultProbeTimeout bounds the server/discover probe on stdio: a legacy
// server that silently ignores unknown methods would otherwise hang the
// connect. Its verdict is remembered, so the bound is paid once.
const DefaultProbeTimeout = 10 * time.Second

// Conn is a connection to its server plus what is needed to tear it down and
// to explain failures.
type Conn struct {
	CS    *mcp.ClientSession
	Entry *config.Entry
	Label string // how messages name the server

	proc *transport.Process
	// probeGate holds a probing stdio server's stderr until the probe's
	// outcome is known (connectOnce); nil when nothing probes.
	probeGate *transport.Gate
	http      *transport.HTTP
	sock      *transport.Socket // the holder of a live session, when held
	// sse says the connection speaks the 2024-11-05 HTTP+SSE transport;
	// foundSSE that auto mode fell back to it, which the memo learns.
	sse, foundSSE bool
	wire          *wire
	// maxMessage bounds one message from the server (--max-message).
	maxMessage int64
	idle       *transport.IdleWatch
	key        string // the server's memo key

	// The era the connection was reached with, and for a second connection
	// when a remembered verdict turns out wrong, the options.
	era      era
	opts     ConnectOptions
	verified bool // a request after connect succeeded

	input *input.State

	// secrets are the invocation's (redact.FromContext of Connect's
	// context): a holder registers what it relays under them and
	// redacts them from what it tells its invocations.
	secrets *redact.Set

	// resumed is set on a session opened to follow a detached task: no
	// handshake, the remembered era and session id.
	resumed resumed
}

// SSE says the connection speaks the 2024-11-05 HTTP+SSE transport.
func (s *Conn) SSE() bool { return s.sse }

// ProtocolVersion is the revision the connection speaks.
func (s *Conn) ProtocolVersion() string {
	if s.CS == nil {
		return s.resumed.version
	}
	if r := s.CS.InitializeResult(); r != nil {
		return r.ProtocolVersion
	}
	return ""
}

// AwaitCancellation gives the SDK up to d to deliver the cancellation of an
// interrupted request before the connection is torn down. The SDK sends
// notifications/cancelled from a goroutine; closing the connection first
// would leave the server to see a disconnect instead. (On the 2026-07-28
// HTTP wire, cancelling is closing the request's stream, already done.)
func (s *Conn) AwaitCancellation(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	switch {
	case s.proc != nil:
		select {
		case <-s.proc.CancelSent():
			// Closing stdin right behind the notification races it inside
			// the server (EOF also cancels the request, as a disconnect);
			// a short pause lets the server act on the cancellation itself.
			transport.WaitFor(s.proc.Done(), min(cancelGrace, d))
		case <-s.proc.Done():
		case <-t.C:
		}
	case s.sock != nil:
		select {
		case <-s.sock.CancelSent(): // the holder passes it on
		case <-t.C:
		}
	case s.http != nil && s.CS != nil && s.ProtocolVersion() < "2026-07-28":
		select {
		case <-s.http.CancelSent(): // the server has accepted it
		case <-t.C:
		}
	}
}

// cancelGrace is how long a cancelled request's server gets before its
// stdin is closed.
var cancelGrace = 250 * time.Millisecond

// CloseWithin ends the connection like Close, but within about d: after a
// timeout or an interrupt the user is waiting, and the server has been told.
func (s *Conn) CloseWithin(d time.Duration) {
	done := make(chan struct{})
	go func() {
		s.CS.Close()
		close(done)
	}()
	if s.proc == nil {
		transport.WaitFor(done, d)
		return
	}
	transport.WaitFor(done, d/4)
	s.proc.StopWithin(d * 3 / 4)
}

// Close ends the connection and, for stdio, the server's whole process group.
func (s *Conn) Close() {
	if s.limitFailure() != nil {
		// A server that broke a limit may not be reading or may be
		// blocked writing: no polite wait for it.
		s.CloseWithin(time.Second)
		return
	}
	done := make(chan struct{})
	go func() {
		s.CS.Close()
		close(done)
	}()
	// The SDK's Close waits for its reader; don't let a wedged server hold
	// the invocation hostage.
	transport.WaitFor(done, transport.CloseGrace)
	if s.proc != nil {
		s.proc.Stop()
	}
}

// Connect starts or reaches the entry's server and completes the protocol
// handshake within the connect timeout. The era is chosen once (see
// chooseEra); in auto mode the verdict remembered for this server picks
// the handshake, and without one mcpc probes and remembers what it found.
func Connect(ctx context.Context, e *config.Entry, o ConnectOptions) (*Conn, error) {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	o.MaxMessage = MessageLimit(e, o)
	if o.ProbeTimeout <= 0 {
		o.ProbeTimeout = DefaultProbeTimeout
		if t := time.Duration(e.Server.ProbeTimeout); t > 0 {
			o.ProbeTimeout = t
		}
	}
	if t := o.Transport; t != "" && t != "auto" && e.Server.URL == "" {
		return nil, fail.New(fail.Usage, "leave it out for a stdio server", "--transport %s applies to HTTP servers only", t)
	}
	o, stop := o.startUp(e)
	defer stop()
	key := ServerKey(e, o.Cwd)
	if o.Held != nil {
		if o.Held.Key != "" {
			key = o.Held.Key
		}
		// The holder negotiated the era once; the invocation speaks it.
		return connectOnce(ctx, e, o, key, era{version: o.Held.Revision, source: "session"})
	}
	chosen := chooseEra(e, o, key)
	s, err := connectOnce(ctx, e, o, key, chosen)
	switch {
	case err == nil:
	case chosen.diedAgain(err):
		trace(o, "the server exited before answering initialize; it %s before, so it is not probed", chosen.rec.Verdict)
		if chosen.rec.Verdict != state.VerdictDiedAtStart {
			rememberDeath(o, key)
		}
		return nil, err
	case chosen.stale(ctx, err):
		// The server is not what it was: forget it and probe afresh.
		o.Memo.Forget(key)
		trace(o, "the remembered verdict (%s) failed; probing afresh", chosen.version)
		s, err = reprobe(ctx, e, o, key, chosen.afresh(), err)
	}
	if err != nil {
		return nil, err
	}
	if pin := chosen.pin; pin != "" && s.ProtocolVersion() != pin {
		got := s.ProtocolVersion()
		s.Close()
		return nil, fail.New(fail.Protocol, "use \"protocol\": \"auto\" (or --protocol auto) to let mcpc pick",
			"%s speaks MCP %s, but protocol %s is pinned", s.Label, got, pin)
	}
	return s, nil
}

func trace(o ConnectOptions, format string, args ...any) {
	if o.Verbose != nil {
		o.Verbose(fmt.Sprintf(format, args...))
	}
}

// newConn is a connection to e not yet made, with its wire.
func newConn(ctx context.Context, e *config.Entry, o ConnectOptions, key string, chosen era) *Conn {
	w := newWire()
	w.memo, w.serverKey, w.noCache, w.meta, w.verbose = o.Memo, key, o.NoCache, o.TraceMeta, o.Verbose
	w.pinModern, w.discover = chosen.pinsModern(), chosen.discover
	w.tap.Record(o.Record.Conn(e.Label()))
	idle := transport.NewIdleWatch(o.IdleTimeout)
	w.activity = idle.Touch
	return &Conn{Entry: e, Label: e.Label(), wire: w, key: key, opts: o, era: chosen, maxMessage: o.MaxMessage, idle: idle,
		secrets: redact.FromContext(ctx)}
}

// connectOnce makes one connection attempt with the era chosen.
func connectOnce(ctx context.Context, e *config.Entry, o ConnectOptions, key string, chosen era) (*Conn, error) {
	newSession := func() *Conn { return newConn(ctx, e, o, key, chosen) }
	s := newSession()
	trace(o, "era: %s", chosen.describe(e.Server.URL == "", o.ProbeTimeout))
	var err error
	switch {
	case o.Held != nil:
		err = s.connectHeld(ctx, o)
	case e.Server.URL != "":
		err = s.connectHTTP(ctx, o, chosen.version)
	default:
		// While the probe decides, the server's stderr is held back: if it
		// dies on the probe and is started again, its start-up messages
		// must show once, not twice.
		gate := transport.NewGate(o.ServerStderr)
		po := o
		if o.ServerStderr != nil && chosen.probes() {
			po.ServerStderr = gate
			s.probeGate = gate
		}
		err = s.connectStdio(ctx, po, chosen.version)
		respawn := err != nil && chosen.probes() && s.proc != nil && s.proc.Exited() && !errors.Is(err, context.Canceled)
		if respawn {
			gate.Discard()
		} else {
			releaseStderr(gate, o)
		}
		if respawn {
			// Some pre-2026 servers exit on the unknown server/discover
			// probe. Start the server once more and speak the 2025
			// protocol to it; the verdict is remembered, so the next
			// invocation starts it once.
			s.proc.Stop()
			trace(o, "the server exited on the probe: starting it again with initialize")
			s = newSession()
			// The second start's failure is the one reported: its stderr
			// is the one shown.
			if err = s.connectStdio(ctx, o, legacyVersion); err == nil {
				s.remember(state.VerdictDiedOnProbe)
				return s, nil
			}
			if fail.CodeOf(err) == fail.ServerExited {
				// It died before answering either handshake. Remembered,
				// the next invocation starts it once, with initialize.
				rememberDeath(o, key)
			}
		}
	}
	if err != nil {
		if s.proc != nil {
			// The handshake failed: nothing is left to say to the server.
			s.proc.StopWithin(150 * time.Millisecond)
		}
		if s.sock != nil {
			s.sock.Close()
		}
		return nil, err
	}
	switch verdict, forget := chosen.learned(s.ProtocolVersion()); {
	case verdict != "":
		s.remember(verdict)
	case s.foundSSE:
		// A remembered Streamable HTTP verdict that fell back: the
		// transport is what changed.
		s.remember(state.VerdictInitialize)
	case forget:
		o.Memo.Forget(key)
		trace(o, "the server remembered as dying at start answered initialize: the next invocation probes its era")
	}
	return s, nil
}

func (s *Conn) connectStdio(ctx context.Context, o ConnectOptions, protocol string) error {
	srv := s.Entry.Server
	argv := append([]string{srv.Command}, srv.Args...)
	env := append([]string(nil), o.Environ...)
	// The envFile's variables come after the inherited ones and before
	// "env": the last of a name wins.
	fileVars, err := s.Entry.EnvFileVars(o.Cwd)
	if err != nil {
		return err
	}
	env = append(env, fileVars...)
	vars, err := config.Environ(srv, s.Label, o.Getenv)
	if err != nil {
		return err
	}
	env = append(env, vars...)
	// A project's servers run in the project's directory (as other hosts
	// run them); others in mcpc's working directory.
	dir := s.Entry.Dir(o.Cwd)
	switch {
	case filepath.IsAbs(srv.Cwd):
		dir = srv.Cwd
	case srv.Cwd != "":
		dir = filepath.Join(dir, srv.Cwd)
	}
	if strings.ContainsRune(argv[0], filepath.Separator) && !filepath.IsAbs(argv[0]) {
		argv[0] = filepath.Join(s.Entry.Dir(o.Cwd), argv[0])
	}
	stderr := o.ServerStderr
	if o.stderrLine != nil {
		stderr = &termui.LastLine{W: stderr, Show: o.stderrLine}
	}
	proc, err := transport.StartProcess(argv, env, dir, stderr)
	if err != nil {
		hint := "check \"command\" in " + s.Entry.SourceName()
		if s.Entry.File == nil {
			hint = "check the command given to --stdio or after --"
		}
		if errors.Is(err, exec.ErrNotFound) {
			return fail.New(fail.Connection, hint, "cannot start %s: command %q not found on PATH", s.Label, srv.Command)
		}
		return fail.Wrap(fail.Connection, err, hint, "cannot start %s", s.Label)
	}
	if o.GuardGroup {
		if err := proc.Guard(); err != nil {
			proc.Stop()
			return fail.Wrap(fail.Internal, err, "", "cannot start the guard of %s's process group", s.Label)
		}
	}
	s.proc = proc
	client := s.newClient(o)
	client.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "server/discover" {
				return next(ctx, method, req)
			}
			pctx, cancel := context.WithTimeout(ctx, o.ProbeTimeout)
			defer cancel()
			res, err := next(pctx, method, req)
			if err != nil && ctx.Err() == nil {
				s.probeRefused()
			}
			return res, err
		}
	})
	return s.handshake(ctx, o, client, proc.Transport(s.wire.tap, s.maxMessage), protocol)
}

// handshake makes the connection within the connect timeout.
func (s *Conn) handshake(ctx context.Context, o ConnectOptions, c *mcp.Client, t mcp.Transport, protocol string) error {
	cctx, cancel := context.WithTimeoutCause(ctx, o.ConnectTimeout, errConnectTimeout)
	defer cancel()
	cs, err := c.Connect(cctx, t, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		return s.connectError(ctx, cctx, err)
	}
	s.CS = cs
	s.afterConnect(cctx)
	return nil
}

// ListHint is the command that lists this server's tools.
func (s *Conn) ListHint() string {
	switch {
	case s.Entry.File != nil:
		return "mcpc list " + shellwords.Quote(s.Entry.Name)
	case s.Entry.Server.URL != "":
		// A query's & would end the command line unquoted.
		return "mcpc list " + shellwords.Quote(urlx.Redact(s.Entry.Server.URL))
	}
	return "mcpc list --stdio " + shellwords.Quote(s.Entry.Name)
}

// releaseStderr passes on the stderr a server wrote while its era was
// decided, and says how much of it the gate could not hold, between its
// start and its last lines: a cut that nobody mentions looks like a
// server that said nothing more.
func releaseStderr(gate *transport.Gate, o ConnectOptions) {
	gate.Release(func(n int64, lines int) {
		if o.Input == nil || o.Input.Note == nil {
			return
		}
		msg := fmt.Sprintf("the server's stderr during start-up was cut at %s: %d bytes more were dropped", units.SizeText(transport.GateHold), n)
		switch {
		case lines == 1:
			msg += " before its last line, which follows"
		case lines > 1:
			msg += fmt.Sprintf(" before its last %d lines, which follow", lines)
		}
		o.Input.Note(msg)
	})
}
