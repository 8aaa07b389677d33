package creds

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/httpx"
	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// A credential helper is a command of the user's ("headersCommand",
// "bearerTokenCommand") that prints what an HTTP server is sent: the
// pattern of git's credential helpers, Docker's credential stores and
// Claude Code's headersHelper. Its output is a secret and hostile input
// alike: bounded, validated, and registered for redaction before it is
// used.
const (
	// HelperMaxOutput bounds what a helper's stdout may hold: headers are
	// a few hundred bytes, a token a few KiB.
	HelperMaxOutput = 64 << 10
	// helperMaxRun bounds one run where the request's own context does
	// not (a session's standalone stream has no deadline).
	helperMaxRun = time.Minute
	// helperFailHold is how long a failed run stands before the helper is
	// run again: one request's retries and fallbacks meet one verdict, and
	// a session's later requests try again.
	helperFailHold = 5 * time.Second
	// helperMaxHeaders bounds how many headers one helper may set.
	helperMaxHeaders = 64
	// helperStderrTail is how much of a helper's stderr is kept for a
	// failure's message: its last lines are what explain it.
	helperStderrTail = 4 << 10
)

// HelperOptions configure a credential helper.
type HelperOptions struct {
	Server string   // the server's name, for messages
	Key    string   // the config key ("headersCommand"), for messages
	Argv   []string // the command, run without a shell
	Dir    string   // its working directory
	Env    []string // its environment
	// Bearer says stdout is one token, sent as "Authorization: Bearer";
	// otherwise it is a JSON object of header names to values.
	Bearer bool
	// TTL is how long what it printed is used before it is run again;
	// 0: for the helper's whole life (the invocation, or the session).
	TTL time.Duration
	// Origin is the server's (urlx.Origin): no other origin is sent the
	// headers, a redirect's target included.
	Origin  string
	Secrets *redact.Set
	Now     func() time.Time
	// Trace receives a --verbose line for each run (never what it
	// printed); nil: none.
	Trace func(string)
}

// Helper runs a credential helper when its headers are first needed,
// keeps them for the TTL, and runs it once more when the server refuses
// them (401, 403) before that answer stands. WrapHTTP puts it on the
// connection's transport, below mcpc's own headers, so that neither
// --verbose nor --record sees what it printed.
type Helper struct {
	o HelperOptions
	// sem serialises runs, waiting as a request's context allows.
	sem     chan struct{}
	headers http.Header
	at      time.Time
	gen     int // counts successful runs
	err     error
	errAt   time.Time
}

// NewHelper makes a helper that has not run yet.
func NewHelper(o HelperOptions) *Helper {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Helper{o: o, sem: make(chan struct{}, 1)}
}

// lock takes the helper for one caller, or fails as ctx ends.
func (h *Helper) lock(ctx context.Context) error {
	select {
	case h.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (h *Helper) unlock() { <-h.sem }

// current is the headers to send and their generation, from the last run
// while it is fresh, else from a new one.
func (h *Helper) current(ctx context.Context) (http.Header, int, error) {
	if err := h.lock(ctx); err != nil {
		return nil, 0, err
	}
	defer h.unlock()
	now := h.o.Now()
	switch {
	case h.err != nil && now.Sub(h.errAt) < helperFailHold:
		return nil, 0, h.err
	case h.headers != nil && (h.o.TTL <= 0 || now.Sub(h.at) < h.o.TTL):
		return h.headers, h.gen, nil
	}
	return h.refresh(ctx)
}

// again is the headers to retry a refused request with: a new run's,
// unless another request's refusal already ran the helper since gen.
func (h *Helper) again(ctx context.Context, gen int) (http.Header, error) {
	if err := h.lock(ctx); err != nil {
		return nil, err
	}
	defer h.unlock()
	if h.gen != gen && h.headers != nil {
		return h.headers, nil
	}
	hs, _, err := h.refresh(ctx)
	return hs, err
}

// refresh runs the helper (h locked) and keeps its verdict.
func (h *Helper) refresh(ctx context.Context) (http.Header, int, error) {
	start := time.Now()
	hs, err := h.run(ctx)
	if h.o.Trace != nil {
		outcome := fmt.Sprintf("%d header(s)", len(hs))
		if err != nil {
			outcome = "failed"
		}
		h.o.Trace(fmt.Sprintf("credential helper: ran the %s (%s): %s", h.o.Key, time.Since(start).Round(time.Millisecond), outcome))
	}
	if err != nil {
		if ctx.Err() == nil {
			h.err, h.errAt = err, h.o.Now()
		}
		return nil, 0, err
	}
	h.headers, h.at, h.err = hs, h.o.Now(), nil
	h.gen++
	return hs, h.gen, nil
}

// run runs the command once within ctx and helperMaxRun, its stdout
// bounded by HelperMaxOutput (past it the command is stopped), and parses
// what it printed.
func (h *Helper) run(ctx context.Context) (http.Header, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, helperMaxRun, errHelperSlow)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.o.Argv[0], h.o.Argv[1:]...)
	cmd.Dir, cmd.Env = h.o.Dir, h.o.Env
	helperGroup(cmd)
	// A child the helper left holding its pipes must not hold mcpc.
	cmd.WaitDelay = time.Second
	out := &capped{max: HelperMaxOutput, over: cancel}
	errs := &tail{max: helperStderrTail}
	cmd.Stdout, cmd.Stderr = out, errs
	err := runTracked(cmd)
	switch {
	case out.overflow:
		return nil, h.failure("it printed more than %d KiB: a helper prints a few headers or one token", HelperMaxOutput>>10)
	case errors.Is(context.Cause(ctx), errHelperSlow):
		return nil, h.failure("it did not finish within %s", helperMaxRun)
	case ctx.Err() != nil:
		return nil, context.Cause(ctx)
	case err != nil:
		return nil, h.failed(err, errs)
	}
	hs, err := ParseHelperOutput(out.buf.Bytes(), h.o.Bearer)
	if err != nil {
		return nil, h.failure("%v", err)
	}
	for _, vs := range hs {
		h.o.Secrets.Add(secretParts(vs[0])...)
	}
	return hs, nil
}

// helpers are the helper commands running, for StopHelpers. (A nil map
// until the first run: nothing is allocated at start-up.)
var helpers struct {
	mu      sync.Mutex
	running map[*exec.Cmd]bool
}

// runTracked runs cmd as one of the helpers StopHelpers stops.
func runTracked(cmd *exec.Cmd) error {
	helpers.mu.Lock()
	err := cmd.Start()
	if err == nil {
		if helpers.running == nil {
			helpers.running = map[*exec.Cmd]bool{}
		}
		helpers.running[cmd] = true
	}
	helpers.mu.Unlock()
	if err != nil {
		return err
	}
	err = cmd.Wait()
	helpers.mu.Lock()
	delete(helpers.running, cmd)
	helpers.mu.Unlock()
	return err
}

// StopHelpers stops every helper still running, as its context would
// (on Unix with what it started): the invocation is ending, and a request
// that gave up at --timeout does not wait for its helper to be stopped,
// which would outlive mcpc.
func StopHelpers() {
	helpers.mu.Lock()
	defer helpers.mu.Unlock()
	for cmd := range helpers.running {
		cmd.Cancel()
	}
}

// helperError is a sentinel of the helper's own; a constant, so that
// nothing is allocated at start-up (TestInitAllocations).
type helperError string

func (e helperError) Error() string { return string(e) }

const errHelperSlow = helperError("the credential helper's time passed")

// failure is the exit-4 verdict on a run: why, after what ran.
func (h *Helper) failure(format string, args ...any) *fail.Error {
	return fail.New(fail.AuthRequired, "run the command by hand to see what it prints",
		"the %s of %s (%s) failed: %s", h.o.Key, h.o.Server, textsafe.OneLine(h.o.Argv[0]), fmt.Sprintf(format, args...))
}

// failed is the verdict on a command that could not start or exited
// non-zero: its last lines on stderr, redacted, as the hint.
func (h *Helper) failed(err error, errs *tail) *fail.Error {
	var ee *exec.ExitError
	why := err.Error()
	if errors.As(err, &ee) {
		why = ee.ProcessState.String()
	} else if errors.Is(err, exec.ErrNotFound) {
		why = "it was not found (a name is looked up in PATH; a relative path starts at the working directory)"
	}
	f := h.failure("%s", why)
	if lines := errs.lines(3); len(lines) > 0 {
		f.Hint = "its stderr: " + h.o.Secrets.String(strings.Join(lines, " | "))
	}
	return f
}

// ParseHelperOutput reads what a helper printed: one token (bearer),
// trimmed, sent as "Authorization: Bearer TOKEN"; or a JSON object whose
// members are header names and string values. Names must be HTTP field
// names (none that mcpc sets itself), values one line; an error never
// quotes a value.
func ParseHelperOutput(out []byte, bearer bool) (http.Header, error) {
	if bearer {
		tok := string(bytes.TrimSpace(out))
		switch {
		case tok == "":
			return nil, errors.New("it printed no token")
		case strings.ContainsAny(tok, " \t") || !httpx.ValidHeaderValue(tok):
			return nil, errors.New("it printed more than one token (spaces, line breaks or control characters)")
		}
		return http.Header{"Authorization": {"Bearer " + tok}}, nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(out, &members); err != nil || members == nil {
		return nil, errors.New("its output is not a JSON object of header names and values")
	}
	if len(members) > helperMaxHeaders {
		return nil, fmt.Errorf("it gave %d headers; at most %d are taken", len(members), helperMaxHeaders)
	}
	hs := http.Header{}
	for _, k := range slices.Sorted(maps.Keys(members)) {
		var v string
		if raw := members[k]; len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &v) != nil {
			return nil, fmt.Errorf("the value of %q is not a string", textsafe.OneLine(k))
		}
		if err := checkHelperHeader(k, v); err != nil {
			return nil, err
		}
		ck := http.CanonicalHeaderKey(k)
		if _, dup := hs[ck]; dup {
			return nil, fmt.Errorf("it gave the header %q twice", ck)
		}
		hs[ck] = []string{v}
	}
	return hs, nil
}

// checkHelperHeader refuses a header a helper may not set.
func checkHelperHeader(k, v string) error {
	switch {
	case !httpx.ValidHeaderName(k):
		return fmt.Errorf("%q is not an HTTP header name", textsafe.OneLine(k))
	case !httpx.ValidHeaderValue(v):
		return fmt.Errorf("the value of %q contains a control character such as CR or LF", k)
	case transportHeader(k):
		return fmt.Errorf("%q is set by mcpc itself, not by a helper", k)
	}
	return nil
}

// transportHeader reports whether mcpc or Go's HTTP client sets the
// header k itself: the framing, the content and the MCP transport's own.
func transportHeader(k string) bool {
	switch strings.ToLower(k) {
	case "host", "content-length", "content-type", "content-encoding", "transfer-encoding", "connection", "te", "trailer",
		"upgrade", "keep-alive", "proxy-connection", "accept", "accept-encoding", "cookie", "last-event-id", "dpop":
		return true
	}
	return strings.HasPrefix(strings.ToLower(k), "mcp-")
}

// secretParts are the forms of a header value to redact: the value, and
// the credential after its scheme ("Bearer TOKEN", "Basic …").
func secretParts(v string) []string {
	if _, cred, ok := strings.Cut(v, " "); ok && cred != "" {
		return []string{v, cred}
	}
	return []string{v}
}

// WrapHTTP is the transport that sends the helper's headers to the
// server's origin, and retries a refused request once with a new run's.
func (h *Helper) WrapHTTP(base http.RoundTripper) http.RoundTripper {
	return &helperTransport{h: h, base: base}
}

type helperTransport struct {
	h    *Helper
	base http.RoundTripper
}

func (t *helperTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if urlx.Origin(req.URL) != t.h.o.Origin {
		return t.base.RoundTrip(req)
	}
	hs, gen, err := t.h.current(req.Context())
	if err != nil {
		closeBody(req)
		return nil, err
	}
	resp, err := t.base.RoundTrip(withHeaders(req, hs, req.Body))
	if err != nil || resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return resp, err
	}
	body, replayable := replayBody(req)
	if !replayable {
		return resp, nil
	}
	// The credential may have expired since the helper printed it: one
	// new run, one retry; what the server says to that is the answer.
	if t.h.o.Trace != nil {
		t.h.o.Trace(fmt.Sprintf("credential helper: the server answered HTTP %d: running the %s again", resp.StatusCode, t.h.o.Key))
	}
	hs, err = t.h.again(req.Context(), gen)
	if err != nil {
		if body != nil {
			body.Close()
		}
		resp.Body.Close()
		return nil, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	return t.base.RoundTrip(withHeaders(req, hs, body))
}

// withHeaders is req with the helper's headers (they win over the
// configured ones) and body.
func withHeaders(req *http.Request, hs http.Header, body io.ReadCloser) *http.Request {
	r := req.Clone(req.Context())
	r.Body = body
	for k, vs := range hs {
		r.Header[k] = vs
	}
	return r
}

// replayBody is a fresh copy of req's body for a retry; false when it
// cannot be had.
func replayBody(req *http.Request) (io.ReadCloser, bool) {
	if req.Body == nil || req.Body == http.NoBody {
		return req.Body, true
	}
	if req.GetBody == nil {
		return nil, false
	}
	b, err := req.GetBody()
	return b, err == nil
}

// closeBody closes the body of a request that is not sent, as a
// RoundTripper must.
func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// capped keeps up to max bytes; past them it fails the write, and calls
// over once (which stops the command).
type capped struct {
	buf      bytes.Buffer
	max      int
	over     func()
	overflow bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.overflow || c.buf.Len()+len(p) > c.max {
		if !c.overflow {
			c.overflow = true
			c.over()
		}
		return 0, errHelperOutput
	}
	return c.buf.Write(p)
}

const errHelperOutput = helperError("the credential helper's output passed its bound")

// tail keeps the last max bytes written to it.
type tail struct {
	buf []byte
	max int
	cut bool // bytes before buf were dropped
}

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.max {
		p = p[len(p)-t.max:]
		t.buf, t.cut = t.buf[:0], true
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf, t.cut = append(t.buf[:0], t.buf[over:]...), true
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// lines are the last n non-empty lines kept (not one whose start was
// dropped), made safe to print and clipped.
func (t *tail) lines(n int) []string {
	var out []string
	kept := string(t.buf)
	if t.cut {
		_, kept, _ = strings.Cut(kept, "\n")
	}
	for l := range strings.Lines(kept) {
		if l = strings.TrimSpace(textsafe.StripControl(l)); l != "" {
			out = append(out, textsafe.Clip(l, 200))
		}
	}
	return out[max(0, len(out)-n):]
}
