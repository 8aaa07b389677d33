package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// httpTransport adds configured headers to requests for the configured
// origin only (the SDK has no field for them), refuses redirects that leave
// that origin, caps response bodies, and remembers the last HTTP error
// status so a refusal can be reported as what it was (authentication, wrong
// endpoint, server failure) rather than as the SDK's transport error.
type httpTransport struct {
	base    http.RoundTripper
	headers http.Header
	origin  string // scheme://host:port of the configured endpoint
	label   string // how messages name the server

	mu        sync.Mutex
	errStatus int            // last status >= 400
	errMethod string         // its Mcp-Method header, when the request had one
	errRPC    *jsonrpc.Error // the JSON-RPC error in its body, if any
	errText   string         // the start of its body, when it is plain text
	refused   *fail.Error

	wire       *wire // nil: no memo, cache or capture (e.g. a probe)
	maxMessage int64 // bytes in one JSON body or event (the SDK reads JSON bodies without a limit)

	cancelSent chan struct{} // closed once a cancellation was delivered
	cancelOnce sync.Once

	// keepSession keeps a 2025 session that holds a detached task: the
	// SDK's DELETE at the end is answered here and never sent.
	keepSession atomic.Bool
}

func newHTTPTransport(base http.RoundTripper, endpoint *url.URL, label string, headers http.Header) *httpTransport {
	return &httpTransport{base: base, headers: headers, origin: originOf(endpoint), label: label, cancelSent: make(chan struct{}), maxMessage: DefaultMaxMessage}
}

// client is the one http.Client of a session: it follows a redirect only
// within the configured origin.
func (t *httpTransport) client() *http.Client {
	return &http.Client{Transport: t, CheckRedirect: t.checkRedirect}
}

// checkRedirect lets a redirect through only when it stays on the
// configured origin: headers and tokens were configured for that origin,
// and a downgrade to plain http off loopback would expose them on the wire.
func (t *httpTransport) checkRedirect(req *http.Request, via []*http.Request) error {
	var e *fail.Error
	switch to := originOf(req.URL); {
	case req.URL.Scheme == "http" && !isLoopback(req.URL.Hostname()):
		e = fail.New(fail.Redirect, "mcpc never sends a request over plain http off loopback; ask the server's operator to fix the redirect",
			"%s redirected to plain http on a non-loopback host (%s → %s); refused", t.label, t.origin, to)
	case to != t.origin:
		e = fail.New(fail.Redirect, "credentials and headers go only to the configured origin; if you trust "+to+", use the URL it redirects to",
			"%s redirected to another origin (%s → %s); refused", t.label, t.origin, to)
	case len(via) >= 10:
		e = fail.New(fail.Redirect, "", "%s redirected more than 10 times", t.label)
	default:
		return nil
	}
	t.mu.Lock()
	t.refused = e
	t.mu.Unlock()
	return e
}

// sentCredentials reports whether requests carry a configured
// Authorization header, so a 401 means "rejected", not "missing".
func (t *httpTransport) sentCredentials() bool {
	return t.headers.Get("Authorization") != ""
}

// redirectRefused is the refusal of the last redirect, or nil.
func (t *httpTransport) redirectRefused() *fail.Error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refused
}

// originOf is an URL's origin, with the scheme's default port made
// explicit so that https://h and https://h:443 compare equal.
func originOf(u *url.URL) string {
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(host, port)
}

func (t *httpTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodDelete && t.keepSession.Load() {
		return &http.Response{Status: "204 No Content", StatusCode: http.StatusNoContent, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{}, Body: http.NoBody, Request: req}, nil
	}
	req = req.Clone(req.Context())
	if originOf(req.URL) == t.origin {
		for k, vs := range t.headers {
			req.Header[k] = vs
		}
	}
	var msg jsonrpc.Message
	if req.Method == http.MethodPost && req.GetBody != nil && t.wire != nil {
		body, err := readBody(req)
		if err != nil {
			return nil, err
		}
		if msg, err = jsonrpc.DecodeMessage(body); err == nil {
			var params json.RawMessage
			if r, ok := msg.(*jsonrpc.Request); ok {
				params = r.Params
			}
			local, err := t.wire.outgoing(msg)
			if err != nil {
				return nil, err
			}
			if local != nil {
				return jsonResponse(req, local)
			}
			// Re-encoded when the wire changed the params (trace context,
			// a task asked for).
			if r, ok := msg.(*jsonrpc.Request); len(t.wire.meta) > 0 || ok && !bytes.Equal(params, r.Params) {
				if body, err = jsonrpc.EncodeMessage(msg); err != nil {
					return nil, err
				}
				setBody(req, body)
			}
		}
	}
	start := time.Now()
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	t.traceHTTP(req, resp, time.Since(start))
	if wait, ok := retryAfter(req, resp, msg); ok {
		// A busy server said when to come back, and the request is safe to
		// repeat: one retry, within the invocation's bound.
		resp.Body.Close()
		t.wire.trace("HTTP %d with Retry-After: retrying once in %s", resp.StatusCode, wait)
		if err := sleep(req.Context(), wait); err != nil {
			return nil, err
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
	if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "notifications/cancelled" && resp.StatusCode < 300 {
		t.cancelOnce.Do(func() { close(t.cancelSent) })
	}
	if _, ok := msg.(*jsonrpc.Response); ok && t.wire != nil {
		t.wire.answered()
	}
	var body io.ReadCloser = resp.Body
	if resp.StatusCode >= 400 {
		rpc, data := errorBody(resp, body)
		body = io.NopCloser(bytes.NewReader(data))
		t.mu.Lock()
		t.errStatus, t.errMethod, t.errRPC = resp.StatusCode, req.Header.Get("Mcp-Method"), rpc
		t.errText = plainText(resp, data)
		t.mu.Unlock()
	}
	if t.wire != nil && resp.StatusCode < 300 {
		switch ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct {
		case "application/json":
			data, err := readAll(io.LimitReader(body, t.maxMessage+1))
			body.Close()
			if err != nil {
				return nil, err
			}
			if int64(len(data)) > t.maxMessage {
				t.wire.overLimit(errTooLarge)
				return nil, errTooLarge
			}
			if len(data) > bigResult && json.Valid(data) {
				data = t.wire.frame(data)
			}
			if m, err := jsonrpc.DecodeMessage(data); err == nil {
				t.wire.incoming(m)
			} else if tooDeep(data) {
				t.wire.overLimit(errTooDeep)
				return nil, errTooDeep
			}
			body = io.NopCloser(bytes.NewReader(data))
		case "text/event-stream":
			body = newSSETap(body, t.wire, int(t.maxMessage))
		}
	}
	resp.Body = body
	return resp, nil
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
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(data)),
		ContentLength: int64(len(data)),
		Request:       req,
	}, nil
}

// traceHTTP writes one --verbose line per HTTP exchange. Header values
// that may carry secrets are never shown.
func (t *httpTransport) traceHTTP(req *http.Request, resp *http.Response, d time.Duration) {
	if t.wire == nil || t.wire.verbose == nil {
		return
	}
	show := func(h http.Header) string {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(h)) {
			v := strings.Join(h[k], ",")
			// Protocol headers are shown; anything configured (whatever its
			// name) and everything else is not.
			_, configured := t.headers[k]
			if configured || !(strings.HasPrefix(k, "Mcp-") || k == "Content-Type" || k == "Accept") {
				v = "<redacted>"
			}
			parts = append(parts, k+": "+v)
		}
		return strings.Join(parts, "; ")
	}
	t.wire.trace("http %s %s → %d (%s) [request %s] [response %s]", req.Method, RedactURL(req.URL.String()),
		resp.StatusCode, d.Round(100*time.Microsecond), show(req.Header), show(resp.Header))
}

// errorBody reads (a bounded part of) an error response and the JSON-RPC
// error in it, if it holds one.
func errorBody(resp *http.Response, body io.ReadCloser) (*jsonrpc.Error, []byte) {
	data, _ := io.ReadAll(io.LimitReader(body, 1<<20))
	body.Close()
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "application/json" {
		return nil, data
	}
	m, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil, data
	}
	var rpc *jsonrpc.Error
	if r, ok := m.(*jsonrpc.Response); ok && errors.As(r.Error, &rpc) {
		return rpc, data
	}
	return nil, data
}

// plainText is the first line of a plain-text error body, shortened: what
// the server said about the failure.
func plainText(resp *http.Response, data []byte) string {
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "text/plain" {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
	if len(line) > 200 {
		line = line[:200] + "…"
	}
	return line
}

func (t *httpTransport) lastRPCError() *jsonrpc.Error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.errRPC
}

func (t *httpTransport) lastError() (int, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.errStatus, t.errMethod
}

func (t *httpTransport) lastErrorText() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.errText
}

// baseTransport is Go's default transport, except that names under
// .localhost (and localhost itself) reach the loopback address without a
// DNS query (RFC 6761): mcpc allows plain http there because it is local,
// so a resolver must not be able to send it anywhere else.
func baseTransport() http.RoundTripper {
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
var safeToRepeat = map[string]bool{
	"server/discover": true, "tools/list": true, "prompts/list": true, "resources/list": true,
	"resources/templates/list": true, "resources/read": true,
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
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	var wait time.Duration
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		wait = time.Duration(secs) * time.Second
	} else if at, err := http.ParseTime(v); err == nil {
		wait = max(time.Until(at), 0)
	} else {
		return 0, false
	}
	limit := maxRetryAfter
	if dl, ok := req.Context().Deadline(); ok {
		limit = min(limit, time.Until(dl))
	}
	return wait, wait < limit
}
