package conn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/input"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/termui"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
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
	// GuardGroup starts a stdio server with a guard of its process group
	// (transport.Process.Guard): a holder's, which outlives invocations
	// and may be killed outright.
	GuardGroup bool
}

// Held is a live session's holder, as an invocation reaches it.
type Held struct {
	Name     string // the session's, for messages
	PID      int    // the holder's
	Socket   string
	Revision string // the revision the holder negotiated: no probe
	// Key identifies what the holder holds (client.SessionKey): results
	// are cached and tasks recorded under it. The entry that stands for
	// a --stdio session names only the session, so it cannot tell.
	Key string
	// Ended says why the session ended, once the holder is gone ("":
	// not known), and whether its holder is alive after all.
	Ended func(ctx context.Context) (why string, alive bool)
	// Silence says why the holder, running, has not answered the
	// handshake, and the failure that names it hung.
	Silence func() (holdwire.Silence, *fail.Error)
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

// Conn is a connected MCP session plus what is needed to tear it down and
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
	// sse says the session speaks the 2024-11-05 HTTP+SSE transport;
	// foundSSE that auto mode fell back to it, which the memo learns.
	sse, foundSSE bool
	wire          *wire
	// maxMessage bounds one message from the server (--max-message).
	maxMessage int64
	idle       *transport.IdleWatch
	key        string // the server's memo key

	// The era the session was reached with, and for a second connection
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

// SSE says the session speaks the 2024-11-05 HTTP+SSE transport.
func (s *Conn) SSE() bool { return s.sse }

// ProtocolVersion is the revision the session speaks.
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
// interrupted request before the session is torn down. The SDK sends
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

// CloseWithin ends the session like Close, but within about d: after a
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

// Close ends the session and, for stdio, the server's whole process group.
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
	o.MaxMessage = messageLimit(e, o)
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

// ServerKey identifies a server for the memo: for stdio its command line,
// configured environment and working directory; for HTTP its origin and
// path. A different key is a different server, never a stale verdict.
func ServerKey(e *config.Entry, cwd string) string {
	srv := e.Server
	if srv.URL != "" {
		u, err := url.Parse(srv.URL)
		if err != nil {
			return state.HashKey("http", srv.URL)
		}
		return state.HashKey("http", urlx.Origin(u)+u.EscapedPath())
	}
	parts := append([]string{"stdio", e.Dir(cwd), srv.Cwd, srv.Command}, srv.Args...)
	for _, k := range slices.Sorted(maps.Keys(srv.Env)) {
		parts = append(parts, k+"="+srv.Env[k])
	}
	if srv.EnvFile != "" {
		parts = append(parts, "envFile="+srv.EnvFile)
	}
	return state.HashKey(parts...)
}

// SessionKey identifies what a session started for e holds: the
// server's definition (its memo key) and the credential it is reached
// with (never the credential itself), so that a changed entry is noticed.
// It is the entry's content alone: a user entry run from another working
// directory is the same entry, not a changed one (a project file's is
// resolved against its own directory either way).
func SessionKey(e *config.Entry, credentialID string) string {
	return state.HashKey(ServerKey(e, e.Dir("")), credentialID)
}

// CredentialParts names, each hashed, what an invocation reaches e with
// that its definition does not fix: the credential (credentialID, a
// reference, never the secret); for a stdio server each "env" value
// expanded from the invocation's environment (${VAR}) and the envFile's
// variables; for an HTTP server each header expanded from it (${VAR}) and
// the bearer token of "bearerTokenEnv", and each --header. A session started with other
// parts holds another credential's server, which this invocation must
// not reach; a literal value is the definition's, whose change only makes
// the session stale. Values are keyed with memo's per-user secret
// (Memo.CredentialKey): a plain hash of a short token in a session record
// could be reversed offline. An error is the one connecting would meet
// (an unset variable, an unreadable envFile).
func CredentialParts(e *config.Entry, cwd, credentialID string, getenv func(string) string, memo *state.Memo) (map[string]string, error) {
	parts := map[string]string{}
	if credentialID != "" {
		parts["credential"] = state.HashKey("credential", credentialID)
	}
	srv := e.Server
	if srv.URL != "" {
		h, err := config.Headers(srv, e.Label(), getenv)
		if err != nil {
			return nil, err
		}
		for k, v := range srv.Headers {
			if strings.Contains(v, "${") {
				parts[fmt.Sprintf("header %q", k)] = memo.CredentialKey("header\x00" + k + "\x00" + h.Get(k))
			}
		}
		// A --header is the invocation's, never the definition's: an
		// Authorization given on the command line is a credential.
		for k := range srv.LiteralHeaders() {
			parts[fmt.Sprintf("header %q", k)] = memo.CredentialKey("header\x00" + k + "\x00" + h.Get(k))
		}
		if srv.BearerTokenEnv != "" {
			parts["bearerTokenEnv"] = memo.CredentialKey("bearer\x00" + getenv(srv.BearerTokenEnv))
		}
		return parts, nil
	}
	env, err := config.Environ(srv, e.Label(), getenv)
	if err != nil {
		return nil, err
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if strings.Contains(srv.Env[k], "${") {
			parts[fmt.Sprintf("env %q", k)] = memo.CredentialKey("env\x00" + k + "\x00" + v)
		}
	}
	if srv.EnvFile != "" {
		vars, err := e.EnvFileVars(cwd)
		if err != nil {
			return nil, err
		}
		parts["envFile"] = memo.CredentialKey(strings.Join(append([]string{"envFile"}, vars...), "\x00"))
	}
	return parts, nil
}

// connectOnce makes one connection attempt with the era chosen.
func connectOnce(ctx context.Context, e *config.Entry, o ConnectOptions, key string, chosen era) (*Conn, error) {
	newSession := func() *Conn {
		w := newWire()
		w.memo, w.serverKey, w.noCache, w.meta, w.verbose = o.Memo, key, o.NoCache, o.TraceMeta, o.Verbose
		w.pinModern, w.discover = chosen.pinsModern(), chosen.discover
		idle := transport.NewIdleWatch(o.IdleTimeout)
		w.activity = idle.Touch
		return &Conn{Entry: e, Label: e.Label(), wire: w, key: key, opts: o, era: chosen, maxMessage: o.MaxMessage, idle: idle,
			secrets: redact.FromContext(ctx)}
	}
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

// probeRefused is told that a stdio server refused the probe (or let it
// go unanswered), so that the SDK falls back to initialize: what the
// server wrote on stderr during the handshake is dropped (Gate.Noise),
// unless --verbose shows everything. Its last lines stay in the failure message of a fallback
// that fails too (Process.StderrTail), and the era memo keeps the next
// invocation from probing at all.
func (s *Conn) probeRefused() {
	if s.probeGate == nil || s.opts.Verbose != nil {
		return
	}
	s.probeGate.Noise()
}

// connectHeld reaches the server through its session's holder. The
// holder answers the handshake itself, at once: one that has said
// nothing within holdwire.ProbeWait is looked at (watchHolder), and one
// stopped or hung is said to be, rather than waited for until
// --connect-timeout and the server blamed.
func (s *Conn) connectHeld(ctx context.Context, o ConnectOptions) error {
	sock, err := transport.DialSocket(ctx, o.Held.Socket)
	var foreign *transport.ForeignSocketError
	if errors.As(err, &foreign) {
		// The session is not this user's, and has not ended.
		return &fail.Error{Code: fail.Connection, Err: err,
			Msg:  fmt.Sprintf("session %s refused: its %s belongs to another user (uid %d), and a session serves only the user who started it", textsafe.Name(o.Held.Name), foreign.What, foreign.UID),
			Hint: "run mcpc as the user who started the session, or leave sessions aside with --no-session"}
	}
	if err != nil {
		return s.heldLost(ctx, err)
	}
	s.sock = sock
	hctx, hung := context.WithCancelCause(ctx)
	defer hung(nil)
	busy := s.watchHolder(hctx, hung, sock)
	err = s.handshake(hctx, o, s.newClient(o), sock.Transport(s.wire.tap, s.maxMessage), o.Held.Revision)
	if f := fail.As(context.Cause(hctx)); err != nil && f != nil && ctx.Err() == nil {
		return f
	}
	if fail.CodeOf(err) == fail.ConnectTimeout && !answered(sock) {
		return s.heldTimeout(busy.Load())
	}
	return err
}

// watchHolder looks at the holder each holdwire.ProbeWait that sock has not
// been answered on: a stopped holder ends the handshake (hung's cause)
// at the first look, one that took the connection and says nothing at
// the second (a loaded machine may hold a holder up for a moment; it
// does not hold it for two); a busy one is waited for, within
// --connect-timeout, and reported busy (the flag returned) if that ends.
func (s *Conn) watchHolder(ctx context.Context, hung context.CancelCauseFunc, sock *transport.Socket) *atomic.Bool {
	busy := new(atomic.Bool)
	look := s.opts.Held.Silence
	if look == nil {
		return busy
	}
	go func() {
		t := time.NewTimer(holdwire.ProbeWait)
		defer t.Stop()
		silent := false
		for {
			select {
			case <-sock.Answered():
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			q, f := look()
			busy.Store(q == holdwire.SilenceBusy)
			if q == holdwire.SilenceStopped || q == holdwire.SilenceHung && silent {
				hung(f)
				return
			}
			silent = q == holdwire.SilenceHung
			t.Reset(holdwire.ProbeWait)
		}
	}()
	return busy
}

// answered reports whether the holder has sent anything on sock.
func answered(sock *transport.Socket) bool {
	select {
	case <-sock.Answered():
		return true
	default:
		return false
	}
}

// heldTimeout is the failure of a handshake the holder never answered
// within --connect-timeout: the holder's, not the server's (which it
// answers for). A stopped one is said to be, whatever the bound.
func (s *Conn) heldTimeout(busy bool) error {
	h, t := s.opts.Held, s.opts.ConnectTimeout
	if h.Silence != nil {
		if q, f := h.Silence(); q == holdwire.SilenceStopped {
			return f
		}
	}
	if busy {
		return fail.New(fail.ConnectTimeout, fmt.Sprintf("its attached invocations hold every slot; raise --connect-timeout (now %s) to wait longer for one", t),
			"session %s's holder (pid %d) is busy: it did not take this invocation within %s", textsafe.Name(h.Name), h.PID, t)
	}
	return fail.New(fail.ConnectTimeout, fmt.Sprintf("raise --connect-timeout (now %s)", t),
		"session %s's holder (pid %d) did not answer the handshake within %s", textsafe.Name(h.Name), h.PID, t)
}

// heldLost explains a session whose holder went away: the session's
// state is gone with it, which is said, never papered over. Finding out
// why is bounded by ctx: an invocation whose own bound passed (--timeout,
// Ctrl-C) says that, at once, and asks the holder nothing.
func (s *Conn) heldLost(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	h := s.opts.Held
	why := ""
	if h.Ended != nil {
		// The holder records why before it lets go of its invocations;
		// one killed outright is found out once its pid is gone. One
		// alive after all did not end the session: nothing to wait for.
		for deadline := time.Now().Add(3 * time.Second); why == "" && time.Now().Before(deadline); {
			var alive bool
			if why, alive = h.Ended(ctx); why != "" || alive {
				break
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	if why == "" {
		why = "its holder went away"
	}
	return SessionEnded(h.Name, why, err)
}

// SessionEnded is the failure of a command that names a session that
// ended (why) without being stopped.
func SessionEnded(name, why string, err error) *fail.Error {
	q := shellwords.Quote(name)
	return &fail.Error{Code: fail.Connection, Err: err, Msg: fmt.Sprintf("session %s ended: %s", textsafe.Name(name), why),
		Hint: fmt.Sprintf("what the server held is lost; start it again with 'mcpc session start %s', or forget it with 'mcpc session stop %s'", q, q)}
}

// handshake connects the session within the connect timeout.
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
