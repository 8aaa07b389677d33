package transport

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"maps"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/httpx"
	"github.com/mcpc-dev/mcpc/internal/listkind"
	"github.com/mcpc-dev/mcpc/internal/urlx"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// HTTP adds configured headers to requests for the configured origin only
// (the SDK has no field for them), refuses redirects that leave that
// origin, and caps response bodies. An answer that neither the SDK nor
// mcpc can use comes back as an *HTTPError carrying what it saw, in the
// error of the request it answered (see roundTrip).
type HTTP struct {
	base    http.RoundTripper
	headers http.Header
	origin  string // scheme://host:port of the configured endpoint
	label   string // how messages name the server
	// oauth says the SDK has an OAuth handler, which answers a 401 or
	// 403 challenge itself (then retries the request once).
	oauth bool

	mu         sync.Mutex
	challenged map[string]bool // calls whose challenge went to the OAuth handler, by id

	tap        *Tap
	maxMessage int64 // bytes in one JSON body or event (the SDK reads JSON bodies without a limit)

	cancelSent chan struct{} // closed once a cancellation was delivered
	cancelOnce sync.Once

	// keepSession keeps a 2025 session that holds a detached task: the
	// SDK's DELETE at the end is answered here and never sent.
	keepSession atomic.Bool

	// The HTTP+SSE transport (legacy_sse.go): sse once OpenSSE found the
	// server speaks it, the stream it opened until the SDK's GET takes it,
	// and the OAuth handler, which mcpc drives itself there.
	sse          bool
	held         *http.Response
	heldURL      string
	oauthHandler auth.OAuthHandler
}

// HTTPOptions say how to reach one Streamable HTTP endpoint.
type HTTPOptions struct {
	Base       http.RoundTripper // what sends: BaseTransport, with WithServerTLS
	Endpoint   *url.URL
	Label      string      // how messages name the server
	Headers    http.Header // sent to the endpoint's origin only
	Tap        *Tap        // every message passes it
	MaxMessage int64       // bytes in one JSON body or event; 0: DefaultMaxMessage
	// OAuth says the SDK has an OAuth handler, which answers a 401 or
	// 403 challenge itself (then retries the request once).
	OAuth bool
	// OAuthHandler is that handler: on HTTP+SSE, where the SDK has none,
	// mcpc sets its tokens and sends it the GET's challenge.
	OAuthHandler auth.OAuthHandler
}

// NewHTTP is the transport to o.Endpoint.
func NewHTTP(o HTTPOptions) *HTTP {
	return &HTTP{base: o.Base, headers: o.Headers, origin: urlx.Origin(o.Endpoint), label: o.Label, cancelSent: make(chan struct{}),
		tap: o.Tap, maxMessage: cmp.Or(o.MaxMessage, DefaultMaxMessage), oauth: o.OAuth, challenged: map[string]bool{},
		oauthHandler: o.OAuthHandler}
}

// Client is the http.Client the SDK sends through: it follows a redirect
// only within the configured origin.
func (t *HTTP) Client() *http.Client {
	return &http.Client{Transport: t, CheckRedirect: t.checkRedirect}
}

// OwnClient is Client for mcpc's own requests (tasks, beside the SDK):
// every answer they cannot use is an error, since no SDK is there to act
// on a challenge or an ended session.
func (t *HTTP) OwnClient() *http.Client {
	return &http.Client{Transport: ownRequests{t}, CheckRedirect: t.checkRedirect}
}

// HasAuthorization says the configured headers carry an Authorization
// (a bearer token from the environment, a --header): then nothing else
// should add one.
func (t *HTTP) HasAuthorization() bool { return t.headers.Get("Authorization") != "" }

// CancelSent is closed once a cancellation was delivered (a 2025 server
// accepted notifications/cancelled).
func (t *HTTP) CancelSent() <-chan struct{} { return t.cancelSent }

// KeepSession keeps a 2025 session that holds a detached task: the SDK's
// DELETE at the end is answered here and never sent.
func (t *HTTP) KeepSession() { t.keepSession.Store(true) }

type ownRequests struct{ t *HTTP }

func (o ownRequests) RoundTrip(req *http.Request) (*http.Response, error) {
	return o.t.roundTrip(req, true)
}

// checkRedirect lets a redirect through only when it stays on the
// configured origin: headers and tokens were configured for that origin,
// and a downgrade to plain http off loopback would expose them on the wire.
// Its refusal reaches the request's caller inside Go's *url.Error.
func (t *HTTP) checkRedirect(req *http.Request, via []*http.Request) error {
	switch to := urlx.Origin(req.URL); {
	case req.URL.Scheme == "http" && !urlx.IsLoopback(req.URL.Hostname()):
		return fail.New(fail.Redirect, "mcpc never sends a request over plain http off loopback; ask the server's operator to fix the redirect",
			"%s redirected to plain http on a non-loopback host (%s → %s); refused", t.label, t.origin, to)
	case to != t.origin:
		return fail.New(fail.Redirect, "credentials and headers go only to the configured origin; if you trust "+to+", use the URL it redirects to",
			"%s redirected to another origin (%s → %s); refused", t.label, t.origin, to)
	case len(via) >= 10:
		// The URL the chain ended at tells a loop (the same URL again) from
		// a long chain; its query values may be secrets, so it is redacted.
		return fail.New(fail.Redirect, "the last redirect pointed to "+urlx.Redact(req.URL.String())+"; check the server's URL and its redirect configuration",
			"%s redirected more than 10 times", t.label)
	}
	return nil
}

func (t *HTTP) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.roundTrip(req, false)
}

// roundTrip sends one request; own says it is mcpc's own, not the SDK's.
// It answers what needs no server, then prepares the request, sends it and
// inspects the answer.
func (t *HTTP) roundTrip(req *http.Request, own bool) (*http.Response, error) {
	if req.Method == http.MethodDelete && t.keepSession.Load() {
		return httpx.Response(req, http.StatusNoContent, "", nil), nil
	}
	if resp := t.takeHeld(req); resp != nil {
		return resp, nil
	}
	ex, local, err := t.prepare(req)
	if err != nil || local != nil {
		return local, err
	}
	resp, err := t.send(ex)
	if err != nil {
		return nil, err
	}
	return t.inspect(ex, resp, own)
}

// exchange is one request on its way: the clone that is sent and the
// JSON-RPC message it carries, if any.
type exchange struct {
	req  *http.Request
	msg  jsonrpc.Message
	call *jsonrpc.Request // the request, when it expects an answer
	sse  bool             // the server speaks HTTP+SSE (2024-11-05)
}

// prepare checks where req goes and clones it with the configured headers
// and the message as the wire changed it. The tap may answer the message
// itself: then that answer is returned instead, and nothing is sent.
func (t *HTTP) prepare(req *http.Request) (*exchange, *http.Response, error) {
	ex := &exchange{sse: t.SSE()}
	if ex.sse {
		// The SDK posts where the server's endpoint event said, which
		// OpenSSE checked; nothing else leaves the origin either.
		if err := t.sameOrigin(req.URL, "asked mcpc to send a request"); err != nil {
			return nil, nil, err
		}
	}
	req = req.Clone(req.Context())
	ex.req = req
	if urlx.Origin(req.URL) == t.origin {
		for k, vs := range t.headers {
			req.Header[k] = vs
		}
		if ex.sse {
			if err := t.oauthToken(req); err != nil {
				return nil, nil, err
			}
		}
	}
	if req.Method != http.MethodPost || req.GetBody == nil {
		return ex, nil, nil
	}
	local, err := t.prepareMessage(ex)
	if err != nil || local != nil {
		return nil, local, err
	}
	if r, ok := ex.msg.(*jsonrpc.Request); ok && r.ID.IsValid() {
		ex.call = r
	}
	return ex, nil, nil
}

// prepareMessage shows the tap the JSON-RPC message ex's body carries,
// and re-encodes the body when the wire changed its params (trace context,
// a task asked for). A body that is no JSON-RPC message is sent as it is.
func (t *HTTP) prepareMessage(ex *exchange) (*http.Response, error) {
	body, err := readBody(ex.req)
	if err != nil {
		return nil, err
	}
	if ex.msg, err = jsonrpc.DecodeMessage(body); err != nil {
		ex.msg = nil
		return nil, nil
	}
	var params json.RawMessage
	if r, ok := ex.msg.(*jsonrpc.Request); ok {
		params = r.Params
	}
	if !relayed(ex.req.Context()) {
		local, err := t.tap.outgoing(ex.msg)
		if err != nil {
			return nil, err
		}
		if local != nil {
			return jsonResponse(ex.req, local)
		}
	}
	if r, ok := ex.msg.(*jsonrpc.Request); ok && !bytes.Equal(params, r.Params) {
		if body, err = jsonrpc.EncodeMessage(ex.msg); err != nil {
			return nil, err
		}
		setBody(ex.req, body)
	}
	return nil, nil
}

// send makes the exchange, once more when a busy server said when to come
// back, and tells what it delivered: a cancellation, an answer.
func (t *HTTP) send(ex *exchange) (*http.Response, error) {
	req := ex.req
	start := time.Now()
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	t.traceHTTP(req, resp, time.Since(start))
	if wait, ok := retryAfter(req, resp, ex.msg); ok {
		// A busy server said when to come back, and the request is safe to
		// repeat: one retry, within the invocation's bound.
		resp.Body.Close()
		t.tap.trace("HTTP %d with Retry-After: retrying once in %s", resp.StatusCode, wait)
		if WaitFor(req.Context().Done(), wait) {
			return nil, context.Cause(req.Context())
		}
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req.Body = body
		}
		start = time.Now()
		if resp, err = t.base.RoundTrip(req); err != nil {
			return nil, err
		}
		t.traceHTTP(req, resp, time.Since(start))
	}
	if r, ok := ex.msg.(*jsonrpc.Request); ok && r.Method == "notifications/cancelled" && resp.StatusCode < 300 {
		t.cancelOnce.Do(func() { close(t.cancelSent) })
	}
	if _, ok := ex.msg.(*jsonrpc.Response); ok {
		t.tap.answered()
	}
	return resp, nil
}

// inspect judges the answer by its status and content type, and puts its
// body under the tap's bounds.
func (t *HTTP) inspect(ex *exchange, resp *http.Response, own bool) (*http.Response, error) {
	switch {
	case ex.req.Method == http.MethodPost && resp.StatusCode >= 400:
		return t.refused(ex.req, resp, ex.call, own || ex.sse)
	case resp.StatusCode < 200 || resp.StatusCode >= 300:
		// A redirect is Go's client's to follow; the standalone GET's 405
		// (no stream offered) and a DELETE's answer are the SDK's.
		return resp, nil
	}
	t.settled(ex.call)
	switch ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct {
	case "application/json":
		return t.inspectJSON(ex, resp)
	case "text/event-stream":
		resp.Body = newSSETap(resp.Body, t.tap, t.maxMessage)
	default:
		if ex.call != nil && !ex.sse {
			// An HTML page, an empty 202, anything but the two answers a
			// request may have. (On HTTP+SSE every answer comes on the
			// stream: a POST is answered 202.)
			return nil, t.unusable(ex.req, resp, ex.call, readEvidence(resp.Body))
		}
	}
	return resp, nil
}

// inspectJSON reads a JSON answer within the message bound and shows it to
// the tap.
func (t *HTTP) inspectJSON(ex *exchange, resp *http.Response) (*http.Response, error) {
	limit := t.tap.limit(t.maxMessage)
	data, err := readAll(io.LimitReader(resp.Body, limit+1))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		t.tap.OverLimit(ErrTooLarge)
		return nil, ErrTooLarge
	}
	if t.tap.framed(len(data)) && json.Valid(data) {
		data = t.tap.frame(data)
	}
	m, err := jsonrpc.DecodeMessage(data)
	switch {
	case err == nil && t.tap.divert(m):
		// Routed by a session's holder, whose relay reads nothing
		// more of it.
		data = nil
	case err == nil:
		t.tap.incoming(m)
	case tooDeep(data):
		t.tap.OverLimit(ErrTooDeep)
		return nil, ErrTooDeep
	case ex.call != nil:
		// Empty, not JSON, or JSON that is not JSON-RPC.
		return nil, t.unusable(ex.req, resp, ex.call, data)
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp, nil
}

// refused handles an HTTP error answer to a POST. The SDK is given what it
// acts on itself: a challenge its OAuth handler answers (the first for a
// request: the retry's is the server's verdict), the 404 that ends a
// session, and a JSON-RPC error in a 4xx body, which it returns as the
// request's error (and negotiates a revision on, for -32022). Anything
// else, and anything for mcpc's own requests, is an *HTTPError. The wire
// is told either way (Wire.Refused).
func (t *HTTP) refused(req *http.Request, resp *http.Response, call *jsonrpc.Request, own bool) (*http.Response, error) {
	data := readEvidence(resp.Body)
	e := newHTTPError(req, resp, data)
	t.tellRefused(call, e)
	sdk := false
	switch status := resp.StatusCode; {
	case own && (status == http.StatusUnauthorized || status == http.StatusForbidden) && req.Context().Value(challengeKey{}) != nil:
		// doOwn hands it to the OAuth handler, as the SDK would.
		resp.Body = io.NopCloser(bytes.NewReader(data))
		return resp, nil
	case own:
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		// Without a handler, a challenge is the verdict (whatever the
		// body says).
		if t.oauth && t.challenge(call) {
			resp.Body = io.NopCloser(bytes.NewReader(data))
			return resp, nil
		}
	case status == http.StatusNotFound && req.Header.Get("Mcp-Session-Id") != "":
		sdk = true // the SDK reports ErrSessionMissing and sends no DELETE
	case status < 500 && e.rpc != nil:
		sdk = true
	}
	t.settled(call)
	if !sdk {
		return nil, e
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp, nil
}

// unusable is the *HTTPError for a 2xx answer to call that is not a
// JSON-RPC message; data is (the start of) its body.
func (t *HTTP) unusable(req *http.Request, resp *http.Response, call *jsonrpc.Request, data []byte) error {
	e := newHTTPError(req, resp, data)
	t.tellRefused(call, e)
	return e
}

// tellRefused shows the wire what a request was answered with when that
// was not an answer: the SDK may swallow the error (it falls back from
// server/discover to initialize), and the wire may need it to explain
// what follows.
func (t *HTTP) tellRefused(call *jsonrpc.Request, e *HTTPError) {
	if call != nil {
		t.tap.wire.Refused(call, e)
	}
}

// challenge reports whether a 401 or 403 to call goes to the SDK's OAuth
// handler: the first for each request does (and is marked); the second is
// the answer to the handler's retry. (A notification has no id: its
// challenges always go to the handler.)
func (t *HTTP) challenge(call *jsonrpc.Request) bool {
	if call == nil {
		return true
	}
	k := IDKey(call.ID)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.challenged[k] {
		return false
	}
	t.challenged[k] = true
	return true
}

// settled forgets call's challenge once it has an answer that is not one.
func (t *HTTP) settled(call *jsonrpc.Request) {
	if call == nil || !t.oauth {
		return
	}
	t.mu.Lock()
	delete(t.challenged, IDKey(call.ID))
	t.mu.Unlock()
}

// readBody reads a request body the SDK gave as a re-readable buffer.
func readBody(req *http.Request) ([]byte, error) {
	rc, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

func setBody(req *http.Request, body []byte) {
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.ContentLength = int64(len(body))
}

// jsonResponse is a locally answered request, dressed as the server's
// plain JSON answer.
func jsonResponse(req *http.Request, msg *jsonrpc.Response) (*http.Response, error) {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, err
	}
	return httpx.Response(req, http.StatusOK, "application/json", data), nil
}

// traceHTTP writes one --verbose line per HTTP exchange. Header values
// that may carry secrets are never shown.
func (t *HTTP) traceHTTP(req *http.Request, resp *http.Response, d time.Duration) {
	if t.tap.wire.Verbose() == nil {
		return
	}
	show := func(h http.Header) string {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(h)) {
			v := strings.Join(h[k], ",")
			// Protocol headers are shown; anything configured (whatever its
			// name), the session id (which lets its holder act in the
			// session) and everything else is not.
			_, configured := t.headers[k]
			if configured || k == "Mcp-Session-Id" || !(strings.HasPrefix(k, "Mcp-") || k == "Content-Type" || k == "Accept") {
				v = "<redacted>"
			}
			parts = append(parts, k+": "+v)
		}
		return strings.Join(parts, "; ")
	}
	t.tap.trace("http %s %s → %d (%s) [request %s] [response %s]", req.Method, urlx.Redact(req.URL.String()),
		resp.StatusCode, d.Round(100*time.Microsecond), show(req.Header), show(resp.Header))
}

// BaseTransport is Go's default transport, except that names under
// .localhost (and localhost itself) reach the loopback address without a
// DNS query (RFC 6761): mcpc allows plain http there because it is local,
// so a resolver must not be able to send it anywhere else.
func BaseTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	// Go's proxy rules skip localhost and loopback IPs but not other
	// .localhost names, which are loopback too.
	proxy := t.Proxy
	t.Proxy = func(req *http.Request) (*url.URL, error) {
		if h := strings.ToLower(strings.TrimSuffix(req.URL.Hostname(), ".")); strings.HasSuffix(h, ".localhost") {
			return nil, nil
		}
		return proxy(req)
	}
	dial := t.DialContext
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, port, err := net.SplitHostPort(addr); err == nil {
			h := strings.ToLower(strings.TrimSuffix(host, "."))
			if h == "localhost" || strings.HasSuffix(h, ".localhost") {
				addr = net.JoinHostPort("127.0.0.1", port)
			}
		}
		return dial(ctx, network, addr)
	}
	return t
}

// safeToRepeat are the requests a 429 or 503 may retry: they change
// nothing on the server. tools/call is never repeated.
var safeToRepeat = reads("server/discover", "resources/read")

// reads is the set of methods and of every list's (listkind.Kinds): a
// list is a read, and a kind added to the table is one too.
func reads(methods ...string) map[string]bool {
	set := map[string]bool{}
	for _, m := range methods {
		set[m] = true
	}
	for _, k := range listkind.Kinds {
		set[k.Method] = true
	}
	return set
}

// maxRetryAfter bounds how long mcpc waits on a Retry-After without a
// deadline of the user's.
const maxRetryAfter = 10 * time.Second

// retryAfter says whether resp (429 or 503 with Retry-After) may be retried
// once, and after how long: only a request safe to repeat, and only when
// the wait fits the invocation's deadline (or maxRetryAfter).
func retryAfter(req *http.Request, resp *http.Response, msg jsonrpc.Message) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	r, ok := msg.(*jsonrpc.Request)
	if !ok || !safeToRepeat[r.Method] {
		return 0, false
	}
	limit := maxRetryAfter
	if dl, ok := req.Context().Deadline(); ok {
		limit = min(limit, time.Until(dl))
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	var wait time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs >= 0 {
		// Compared in seconds first: an absurd value (9223372037) times
		// a second is past what a Duration holds and would wrap around
		// to a wait of nothing.
		if secs > int64(limit/time.Second) {
			return 0, false
		}
		wait = time.Duration(secs) * time.Second
	} else if at, err := http.ParseTime(v); err == nil {
		wait = max(time.Until(at), 0) // Until saturates: no wrap-around
	} else {
		return 0, false
	}
	return wait, wait < limit
}
