package transport

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/httpx"
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

	// streams counts the SDK's GETs on Streamable HTTP: the first opens
	// the standalone stream; each after it, or one with a Last-Event-ID,
	// is the SDK reconnecting a stream that dropped (onResume).
	streams  atomic.Int32
	onResume func(lastEventID string)
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
	// OnResume, when set, is told each time the SDK reconnects an event
	// stream that dropped, with the Last-Event-ID it resumes after (""
	// when the server gave its events none: what came between is lost).
	OnResume func(lastEventID string)
}

// NewHTTP is the transport to o.Endpoint.
func NewHTTP(o HTTPOptions) *HTTP {
	return &HTTP{base: o.Base, headers: o.Headers, origin: urlx.Origin(o.Endpoint), label: o.Label, cancelSent: make(chan struct{}),
		tap: o.Tap, maxMessage: cmp.Or(o.MaxMessage, DefaultMaxMessage), oauth: o.OAuth, challenged: map[string]bool{},
		oauthHandler: o.OAuthHandler, onResume: o.OnResume}
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
// configured origin (SameOriginRedirects).
func (t *HTTP) checkRedirect(req *http.Request, via []*http.Request) error {
	return SameOriginRedirects(t.label, t.origin)(req, via)
}

// SameOriginRedirects is the http.Client CheckRedirect of every request
// mcpc sends to a URL it was given: a redirect is followed only when it
// stays on origin (urlx.Origin), since headers and tokens were configured
// for that origin and a document fetched there was asked of it; a
// downgrade to plain http off loopback would expose them on the wire. Its
// refusal reaches the request's caller inside Go's *url.Error; label names
// the server or the URL in it.
func SameOriginRedirects(label, origin string) func(req *http.Request, via []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		switch to := urlx.Origin(req.URL); {
		case req.URL.Scheme == "http" && !urlx.IsLoopback(req.URL.Hostname()):
			return fail.New(fail.Redirect, "mcpc never sends a request over plain http off loopback; ask the server's operator to fix the redirect",
				"%s redirected to plain http on a non-loopback host (%s → %s); refused", label, origin, to)
		case to != origin:
			return fail.New(fail.Redirect, "credentials and headers go only to the configured origin; if you trust "+to+", use the URL it redirects to",
				"%s redirected to another origin (%s → %s); refused", label, origin, to)
		case len(via) >= 10:
			// The URL the chain ended at tells a loop (the same URL again) from
			// a long chain; its query values may be secrets, so it is redacted.
			return fail.New(fail.Redirect, "the last redirect pointed to "+urlx.Redact(req.URL.String())+"; check the server's URL and its redirect configuration",
				"%s redirected more than 10 times", label)
		}
		return nil
	}
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
	if req.Method == http.MethodGet && !own {
		t.streamOpening(req)
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

// streamOpening tells of a GET of the SDK's that reconnects a dropped
// Streamable HTTP event stream: one that carries a Last-Event-ID, or any
// GET after the first (the standalone stream opened again, from nothing).
// HTTP+SSE's GETs are not the SDK's reconnects: it has none.
func (t *HTTP) streamOpening(req *http.Request) {
	if t.SSE() || req.Context().Value(openingSSE{}) != nil {
		return
	}
	last := req.Header.Get("Last-Event-ID")
	if t.streams.Add(1) == 1 && last == "" {
		return
	}
	t.tap.trace("event stream dropped: reconnecting (Last-Event-ID %q)", last)
	if t.onResume != nil {
		t.onResume(last)
	}
}

// exchange is one request on its way: the clone that is sent and the
// JSON-RPC message it carries, if any.
type exchange struct {
	req  *http.Request
	msg  jsonrpc.Message
	call *jsonrpc.Request // the request, when it expects an answer
	sse  bool             // the server speaks HTTP+SSE (2024-11-05)
	body []byte           // the body sent, when a recording needs it
	// legacy is sse, or the GET that opens an HTTP+SSE stream (OpenSSE):
	// how a recording names the transport.
	legacy bool
}

// recName is how a recording names the exchange's transport.
func (ex *exchange) recName() string {
	if ex.legacy {
		return "sse"
	}
	return "http"
}

// openingSSE marks the context of OpenSSE's GET.
type openingSSE struct{}

// prepare checks where req goes and clones it with the configured headers
// and the message as the wire changed it. The tap may answer the message
// itself: then that answer is returned instead, and nothing is sent.
func (t *HTTP) prepare(req *http.Request) (*exchange, *http.Response, error) {
	ex := &exchange{sse: t.SSE()}
	ex.legacy = ex.sse || req.Context().Value(openingSSE{}) != nil
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
	ex.body = body
	if ex.msg, err = DecodeMessage(body); err != nil {
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
		ex.body = body
	}
	return nil, nil
}

// send makes the exchange, once more when a busy server said when to come
// back, and tells what it delivered: a cancellation, an answer.
func (t *HTTP) send(ex *exchange) (*http.Response, error) {
	req := ex.req
	start := time.Now()
	resp, err := t.roundTripOnce(ex)
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
		if resp, err = t.roundTripOnce(ex); err != nil {
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

// roundTripOnce sends ex's request once, recording it and its answer's
// head when the tap records.
func (t *HTTP) roundTripOnce(ex *exchange) (*http.Response, error) {
	if t.tap.rec == nil {
		return t.base.RoundTrip(ex.req)
	}
	t.tap.rec.request(ex.recName(), ex.req, ex.body)
	resp, err := t.base.RoundTrip(ex.req)
	if err != nil {
		t.tap.rec.note("%s %s: %v", ex.req.Method, urlx.Redact(ex.req.URL.String()), err)
		return nil, err
	}
	t.tap.rec.response(ex.recName(), resp)
	return resp, nil
}

// BaseTransport is Go's default transport, except that names under
// .localhost (and localhost itself) reach the loopback address without a
// DNS query (RFC 6761): mcpc allows plain http there because it is local,
// so a resolver must not be able to send it anywhere else. It keeps as
// many idle connections to its one server as to all (Go's default is 2
// per host): a holder (a session's, serve's) posts many requests at once,
// and every connection past 2 was closed at its answer and dialed again
// for the next.
func BaseTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = t.MaxIdleConns
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
