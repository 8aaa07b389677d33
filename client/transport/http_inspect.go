package transport

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpc-dev/mcpc/internal/httpx"
	"github.com/mcpc-dev/mcpc/internal/urlx"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// inspect judges the answer by its status and content type, and puts its
// body under the tap's bounds.
func (t *HTTP) inspect(ex *exchange, resp *http.Response, own bool) (*http.Response, error) {
	switch {
	case ex.req.Method == http.MethodPost && resp.StatusCode >= 400:
		return t.refused(ex, resp, own || ex.sse)
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
		resp.Body.(*sseTap).name = ex.recName()
	default:
		if ex.call != nil && !ex.sse {
			// An HTML page, an empty 202, anything but the two answers a
			// request may have. (On HTTP+SSE every answer comes on the
			// stream: a POST is answered 202.)
			data := readEvidence(resp.Body)
			t.recordBody(ex, data)
			return nil, t.unusable(ex.req, resp, ex.call, data)
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
	t.recordBody(ex, data)
	if t.tap.framed(len(data)) && json.Valid(data) {
		data = t.tap.frame(data)
	}
	m, err := DecodeMessage(data)
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
func (t *HTTP) refused(ex *exchange, resp *http.Response, own bool) (*http.Response, error) {
	req, call := ex.req, ex.call
	data := readEvidence(resp.Body)
	t.recordBody(ex, data)
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
	case status < 500 && e.rpc != nil && e.rpc.Code != CodeRateLimited:
		// (A -32023 is mcpc's to honour: the SDK reads only the 429.)
		sdk = true
	}
	t.settled(call)
	if !sdk {
		return nil, e
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp, nil
}

// recordBody records an answer's body (what was read of it) when the tap
// records.
func (t *HTTP) recordBody(ex *exchange, data []byte) {
	if t.tap.rec != nil && len(data) > 0 {
		t.tap.rec.message("in", ex.recName(), data)
	}
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
