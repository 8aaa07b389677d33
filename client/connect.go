package client

import (
	"bytes"
	"context"
	"encoding/json"
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
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/internal/fail"
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
	Protocol    string      // overrides the entry's "protocol" when set
	Version     string      // mcpc's version, sent as clientInfo
	Memo        *state.Memo // era verdicts and cached results; nil: none
	NoCache     bool        // do not answer requests from cached results
	// Verbose receives one line per traced event (--verbose); nil: off.
	Verbose func(line string)
	// TraceMeta is added to every request's _meta (W3C trace context).
	TraceMeta map[string]string
	// Progress, when set, receives the server's progress notifications
	// (every tools/call carries a progress token).
	Progress func(*mcp.ProgressNotificationParams)
	Input    *Input // answers to what the server asks; nil offers nothing
	// OAuthHandler, for HTTP servers, supplies tokens (a stored login,
	// or a login in progress); see package creds.
	OAuthHandler auth.OAuthHandler
	// CredentialID names the credential OAuthHandler serves (never a
	// secret: its tokens rotate, the login does not), so private cached
	// results stay with it.
	CredentialID string
}

// DefaultConnectTimeout is generous because npx- and uvx-launched servers
// often download and compile before they answer.
const DefaultConnectTimeout = 60 * time.Second

// DefaultProbeTimeout bounds the server/discover probe on stdio: a legacy
// server that silently ignores unknown methods would otherwise hang the
// connect. Its verdict is remembered, so the bound is paid once.
const DefaultProbeTimeout = 10 * time.Second

// Session is a connected MCP session plus what is needed to tear it down and
// to explain failures.
type Session struct {
	CS    *mcp.ClientSession
	Entry *config.Entry
	Label string // how messages name the server
	// EraSource says where the protocol revision came from: "pin",
	// "memo" or "probe".
	EraSource string

	proc *process
	http *httpTransport
	wire *wire
	// maxMessage bounds one message from the server (--max-message).
	maxMessage int64
	idle       *idleWatch
	key        string // the server's memo key

	// For a second connection when a remembered verdict turns out wrong.
	opts     ConnectOptions
	pin      string
	verified bool // a request after connect succeeded

	input *inputState

	// resumed is set on a session opened to follow a detached task: no
	// handshake, the remembered era and session id.
	resumed resumed
}

// ProtocolVersion is the revision the session speaks.
func (s *Session) ProtocolVersion() string {
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
func (s *Session) AwaitCancellation(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	switch {
	case s.proc != nil:
		select {
		case <-s.proc.cancelSent:
			// Closing stdin right behind the notification races it inside
			// the server (EOF also cancels the request, as a disconnect);
			// a short pause lets the server act on the cancellation itself.
			waitFor(s.proc.done, min(cancelGrace, d))
		case <-s.proc.done:
		case <-t.C:
		}
	case s.http != nil && s.CS != nil && s.ProtocolVersion() < "2026-07-28":
		select {
		case <-s.http.cancelSent: // the server has accepted it
		case <-t.C:
		}
	}
}

// cancelGrace is how long a cancelled request's server gets before its
// stdin is closed.
var cancelGrace = 250 * time.Millisecond

// CloseWithin ends the session like Close, but within about d: after a
// timeout or an interrupt the user is waiting, and the server has been told.
func (s *Session) CloseWithin(d time.Duration) {
	done := make(chan struct{})
	go func() {
		s.CS.Close()
		close(done)
	}()
	if s.proc == nil {
		waitFor(done, d)
		return
	}
	waitFor(done, d/4)
	s.proc.stopWithin(d * 3 / 4)
}

// Close ends the session and, for stdio, the server's whole process group.
func (s *Session) Close() {
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
	waitFor(done, stdinGrace+termGrace)
	if s.proc != nil {
		s.proc.stop()
	}
}

// Connect starts or reaches the entry's server and completes the protocol
// handshake within the connect timeout. In auto mode the era verdict
// remembered for this server picks the handshake; without one, mcpc probes
// and remembers what it found.
func Connect(ctx context.Context, e *config.Entry, o ConnectOptions) (*Session, error) {
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
	pin := e.Server.Protocol
	if o.Protocol != "" {
		pin = o.Protocol
	}
	if pin == "auto" {
		pin = ""
	}
	key := serverKey(e, o.Cwd)
	var rec *state.EraRecord
	if o.Memo != nil {
		rec = o.Memo.Era(key)
	}
	s, err := connectOnce(ctx, e, o, pin, key, rec)
	// Only a verdict this attempt relied on can be stale: under a pin, that
	// is a replayed discover result.
	usedRec := rec != nil && (pin == "" || pin >= modernVersion && rec.Version == pin && len(rec.Discover) > 0)
	if err != nil && usedRec && rec.Died() && fail.CodeOf(err) == fail.ServerExited {
		// A server that exits on the probe, now exiting before it answers
		// initialize too: probing it again would only start it twice more
		// to learn the same.
		trace(o, "the server exited before answering initialize; it %s before, so it is not probed", rec.Verdict)
		if rec.Verdict != state.VerdictDiedAtStart {
			rememberDeath(o, key)
		}
		return nil, err
	}
	if err != nil && usedRec && ctx.Err() == nil && eraSuspect(err) {
		// The server is not what it was: forget it and probe afresh.
		o.Memo.Forget(key)
		trace(o, "the remembered verdict (%s) failed; probing afresh", rec.Version)
		s, err = reprobe(ctx, e, o, pin, key, err)
	}
	if err != nil {
		return nil, err
	}
	if pin != "" && s.ProtocolVersion() != pin {
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

// serverKey identifies a server for the memo: for stdio its command line,
// configured environment and working directory; for HTTP its origin and
// path. A different key is a different server, never a stale verdict.
func serverKey(e *config.Entry, cwd string) string {
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
	return state.HashKey(parts...)
}

// ForgetServer drops everything remembered about the entry's server: its
// era verdict and cached results (credentials and detached tasks are kept
// elsewhere and stay).
func ForgetServer(m *state.Memo, e *config.Entry, cwd string) {
	m.Forget(serverKey(e, cwd))
}

// connectOnce makes one connection attempt with the revision chosen by the
// pin, the remembered verdict rec, or a probe.
func connectOnce(ctx context.Context, e *config.Entry, o ConnectOptions, pin, key string, rec *state.EraRecord) (*Session, error) {
	label := fmt.Sprintf("server %q", e.Name)
	if e.File == nil && e.Server.URL != "" {
		label = "server at " + urlx.Redact(e.Server.URL)
	}
	newSession := func() *Session {
		w := newWire()
		w.memo, w.serverKey, w.noCache, w.meta, w.verbose = o.Memo, key, o.NoCache, o.TraceMeta, o.Verbose
		idle := &idleWatch{d: o.IdleTimeout}
		w.activity = idle.touch
		return &Session{Entry: e, Label: label, wire: w, key: key, opts: o, pin: pin, maxMessage: o.MaxMessage, idle: idle}
	}
	s := newSession()
	version := pin
	switch {
	case pin != "":
		s.EraSource = "pin"
		s.wire.pinModern = pin >= modernVersion
		// A pinned 2026-07-28 server that was met before needs no
		// server/discover either.
		if rec != nil && rec.Version == pin && len(rec.Discover) > 0 {
			s.wire.discover = rec.Discover
		}
	case rec != nil:
		s.EraSource = "memo"
		version = rec.Version
		if version >= modernVersion && len(rec.Discover) > 0 {
			s.wire.discover = rec.Discover
		}
	default:
		s.EraSource = "probe"
	}
	if version == "" && e.Server.URL == "" {
		trace(o, "era: auto (probe with server/discover, bound %s) from probe", o.ProbeTimeout)
	} else {
		trace(o, "era: %s from %s", cmpOr(version, "auto (probe with server/discover)"), s.EraSource)
	}
	var err error
	if e.Server.URL != "" {
		err = s.connectHTTP(ctx, o, version)
	} else {
		// While the probe decides, the server's stderr is held back: if it
		// dies on the probe and is started again, its start-up messages
		// must show once, not twice.
		gate := &gateWriter{out: o.ServerStderr}
		po := o
		if o.ServerStderr != nil && version == "" {
			po.ServerStderr = gate
		}
		err = s.connectStdio(ctx, po, version)
		respawn := err != nil && version == "" && s.proc != nil && s.proc.exited() && !errors.Is(err, context.Canceled)
		if respawn {
			gate.discard()
		} else {
			gate.release()
		}
		if respawn {
			// Some pre-2026 servers exit on the unknown server/discover
			// probe. Start the server once more and speak the 2025
			// protocol to it; the verdict is remembered, so the next
			// invocation starts it once.
			s.proc.stop()
			trace(o, "the server exited on the probe: starting it again with initialize")
			s = newSession()
			s.EraSource = "probe"
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
			s.proc.stopWithin(150 * time.Millisecond)
		}
		return nil, err
	}
	switch {
	case s.EraSource == "probe":
		verdict := state.VerdictProbe
		if s.ProtocolVersion() < modernVersion {
			verdict = state.VerdictInitialize
		}
		s.remember(verdict)
	case s.EraSource == "pin" && s.wire.discover == nil && s.ProtocolVersion() >= modernVersion:
		s.remember(state.VerdictProbe)
	case rec != nil && rec.Verdict == state.VerdictDiedAtStart:
		// The server that died at start answers now, in the 2025 era; no
		// probe says whether it speaks 2026-07-28 too, so the next
		// invocation probes rather than remember a guess.
		o.Memo.Forget(key)
		trace(o, "the server remembered as dying at start answered initialize: the next invocation probes its era")
	}
	return s, nil
}

const (
	modernVersion = "2026-07-28"
	legacyVersion = "2025-11-25"
)

// remember stores the verdict of a probe. A modern server's discover result
// is kept so the next invocation can replay it instead of asking.
func (s *Session) remember(verdict string) {
	rec := &state.EraRecord{Version: s.ProtocolVersion(), Verdict: verdict}
	if rec.Version >= modernVersion {
		s.wire.mu.Lock()
		rec.Discover = s.wire.lastDiscover
		s.wire.mu.Unlock()
	}
	rememberEra(s.opts, s.key, rec)
}

// rememberDeath stores that a stdio server exits before answering either
// handshake. No session holds a version: the record's is the one to start
// it with next time.
func rememberDeath(o ConnectOptions, key string) {
	rememberEra(o, key, &state.EraRecord{Version: legacyVersion, Verdict: state.VerdictDiedAtStart})
}

func rememberEra(o ConnectOptions, key string, rec *state.EraRecord) {
	if o.Memo == nil {
		return
	}
	o.Memo.SetEra(key, rec)
	trace(o, "era verdict remembered: %s (%s)", rec.Version, rec.Verdict)
}

// eraSuspect reports whether a failure may come from speaking the wrong
// era to the server, rather than from the server or the user.
func eraSuspect(err error) bool {
	switch fail.CodeOf(err) {
	case fail.Protocol, fail.ServerExited, fail.HTTPStatus:
		return true
	case fail.Rejected:
		var rpc *jsonrpc.Error
		if errors.As(err, &rpc) {
			switch rpc.Code {
			case jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, codeUnsupportedVersion, codeHeaderMismatch:
				return true
			}
		}
	}
	return false
}

// JSON-RPC codes of the 2026-07-28 revision.
const (
	codeHeaderMismatch     = -32020
	codeMissingCapability  = -32021
	codeUnsupportedVersion = -32022
)

// oneLineJSON compacts a JSON fragment for a message.
func oneLineJSON(raw string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(raw)) != nil {
		return raw
	}
	return b.String()
}

// reprobe connects afresh, without the remembered verdict, after an
// attempt that relied on it failed with err. When that attempt's server
// died, its stderr has been shown: the new attempt's is held until the
// outcome is known and dropped if the server dies again (its last words are
// in the error), so one death is shown once.
func reprobe(ctx context.Context, e *config.Entry, o ConnectOptions, pin, key string, err error) (*Session, error) {
	if o.ServerStderr == nil || e.Server.URL != "" || fail.CodeOf(err) != fail.ServerExited {
		return connectOnce(ctx, e, o, pin, key, nil)
	}
	gate := &gateWriter{out: o.ServerStderr}
	po := o
	po.ServerStderr = gate
	s, err := connectOnce(ctx, e, po, pin, key, nil)
	if err != nil {
		if fail.CodeOf(err) == fail.ServerExited {
			gate.discard()
		} else {
			gate.release()
		}
		return nil, err
	}
	gate.release()
	s.opts.ServerStderr = o.ServerStderr
	return s, nil
}

// verify runs a session's first request. When a remembered verdict turns
// out wrong (the server answers as the other era), the verdict is dropped,
// the server reached afresh with a probe, and the request run again.
func (s *Session) verify(ctx context.Context, op func() error) error {
	err := op()
	if s.verified || (s.EraSource != "memo" && s.wire.discover == nil) {
		s.verified = s.verified || err == nil
		return err
	}
	if err == nil {
		s.verified = true
		return nil
	}
	if !eraSuspect(err) || ctx.Err() != nil {
		return err
	}
	trace(s.opts, "the first request failed (%s): the remembered verdict may be stale; probing afresh", s.scrub(err))
	s.opts.Memo.Forget(s.key)
	s.Close()
	s2, err2 := reprobe(ctx, s.Entry, s.opts, s.pin, s.key, err)
	if err2 != nil {
		return err2
	}
	*s = *s2
	s.verified = true
	return op()
}

func (s *Session) connectStdio(ctx context.Context, o ConnectOptions, protocol string) error {
	srv := s.Entry.Server
	argv := append([]string{srv.Command}, srv.Args...)
	env := append([]string(nil), o.Environ...)
	for _, k := range slices.Sorted(maps.Keys(srv.Env)) {
		v, err := config.Expand(srv.Env[k], o.Getenv)
		if err != nil {
			return fail.New(fail.Config, "export it, or give a default with ${VAR:-default}",
				"%s: env %q: %v", s.Label, k, err)
		}
		env = append(env, k+"="+v)
	}
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
	proc, err := startProcess(argv, env, dir, o.ServerStderr)
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
	s.proc = proc
	client := s.newClient(o)
	client.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "server/discover" {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, o.ProbeTimeout)
				defer cancel()
			}
			return next(ctx, method, req)
		}
	})
	proc.stdout.frame, proc.stdout.over, proc.stdout.limit = s.wire.frame, s.wire.overLimit, int(s.maxMessage)+1
	t := &mcp.IOTransport{Reader: proc.stdout, Writer: proc.stdin, MaxLineLength: int(s.maxMessage) + 2}
	return s.handshake(ctx, o, client, &wireTransport{inner: t, w: s.wire}, protocol)
}

// handshake connects the session within the connect timeout.
func (s *Session) handshake(ctx context.Context, o ConnectOptions, c *mcp.Client, t mcp.Transport, protocol string) error {
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

func (s *Session) connectHTTP(ctx context.Context, o ConnectOptions, protocol string) error {
	if err := s.prepareHTTP(o); err != nil {
		return err
	}
	t := &mcp.StreamableClientTransport{
		Endpoint:   s.Entry.Server.URL,
		HTTPClient: s.http.client(),
		// A 2025 server may send its questions (elicitation/create) on
		// the standalone GET stream rather than on the request's own, so
		// it is opened when there is someone or something to answer.
		DisableStandaloneSSE: !o.Input.offersElicitation(),
		OAuthHandler:         o.OAuthHandler,
	}
	return s.handshake(ctx, o, s.newClient(o), t, protocol)
}

// prepareHTTP sets up the session's HTTP client: headers, credentials,
// TLS, and the wire.
func (s *Session) prepareHTTP(o ConnectOptions) error {
	srv := s.Entry.Server
	headers := http.Header{}
	for _, k := range slices.Sorted(maps.Keys(srv.Headers)) {
		v, err := config.Expand(srv.Headers[k], o.Getenv)
		if err != nil {
			return fail.New(fail.Config, "export it, or give a default with ${VAR:-default}",
				"%s: header %q: %v", s.Label, k, err)
		}
		// A line break would end the header early (and smuggle another);
		// the variable's value is never quoted in the message.
		if !validHeaderValue(v) {
			return fail.New(fail.Config, "header values must be one line of printable text",
				"%s: header %q: its value (after ${VAR} expansion) contains a control character such as CR or LF", s.Label, k)
		}
		headers.Set(k, v)
	}
	for k, v := range srv.LiteralHeaders() {
		if !validHeaderValue(v) {
			return fail.New(fail.Usage, "header values must be one line of printable text",
				"--header %q: its value contains a control character such as CR or LF", k)
		}
		headers.Set(k, v)
	}
	if name := srv.BearerTokenEnv; name != "" {
		tok := o.Getenv(name)
		if tok == "" {
			return fail.New(fail.AuthRequired, "export "+name+" with the server's access token",
				"%s needs a bearer token from the environment variable %s, which is not set", s.Label, name)
		}
		headers.Set("Authorization", "Bearer "+tok)
	}
	endpoint, err := url.Parse(srv.URL)
	if err != nil { // checked when the config was read
		return fail.Wrap(fail.Config, err, "", "%s: invalid URL", s.Label)
	}
	base, err := withServerTLS(baseTransport(), s.Entry, s.Entry.ConfigDir(o.Cwd))
	if err != nil {
		return err
	}
	s.http = newHTTPTransport(base, endpoint, s.Label, headers)
	s.http.wire, s.http.maxMessage, s.http.oauth = s.wire, s.maxMessage, o.OAuthHandler != nil
	if a := headers.Get("Authorization"); a != "" {
		s.wire.credKey = o.Memo.CredentialKey(a)
	} else if o.CredentialID != "" {
		s.wire.credKey = state.HashKey("credential", o.CredentialID)
	}
	return nil
}

// ListHint is the command that lists this server's tools.
func (s *Session) ListHint() string {
	switch {
	case s.Entry.File != nil:
		return "mcpc list " + s.Entry.Name
	case s.Entry.Server.URL != "":
		return "mcpc list " + urlx.Redact(s.Entry.Server.URL)
	}
	return "mcpc list --stdio " + shellQuote(s.Entry.Name)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// gateWriter holds a probing server's stderr until the probe's outcome is
// known, then passes it on (release) or drops it (discard).
type gateWriter struct {
	mu      sync.Mutex
	out     io.Writer
	buf     []byte
	decided bool
	drop    bool
}

func (g *gateWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case !g.decided:
		if len(g.buf) < 1<<20 {
			g.buf = append(g.buf, p...)
		}
		return len(p), nil
	case g.drop || g.out == nil:
		return len(p), nil
	}
	return g.out.Write(p)
}

func (g *gateWriter) release() { g.decide(false) }
func (g *gateWriter) discard() { g.decide(true) }

func (g *gateWriter) decide(drop bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.decided {
		return
	}
	g.decided, g.drop = true, drop
	if !drop && g.out != nil && len(g.buf) > 0 {
		g.out.Write(g.buf)
	}
	g.buf = nil
}

// validHeaderValue reports whether v can be sent as one HTTP header value:
// no control characters but tab (RFC 9110 field-value).
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
