package transport

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/internal/httpx"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// HTTPError is what one HTTP exchange saw when its answer was not one the
// SDK (or mcpc's own request) can use: an error status, or a 2xx answer to
// a request that is not a JSON-RPC message. The RoundTripper returns it in
// place of the response, so it travels in the error of the very request
// that failed (the SDK wraps transport errors with %w, Go's HTTP client in
// a *url.Error) and client's explain finds it with errors.As: no failure
// is explained from another request's answer.
type HTTPError struct {
	method      string // the request's Mcp-Method header ("" on 2025 servers)
	status      int
	contentType string         // the media type, without parameters
	excerpt     string         // the start of the body: one line, escape-stripped, bounded
	empty       bool           // the body was empty (or blank)
	json        bool           // the body is JSON
	rpc         *jsonrpc.Error // the JSON-RPC error in the body, if any
	credentials bool           // the request carried an Authorization header
	challenge   bool           // the answer carried a WWW-Authenticate challenge
}

func (e *HTTPError) Error() string {
	what := fmt.Sprintf("HTTP %d", e.status)
	switch {
	case e.rpc != nil:
		return fmt.Sprintf("%s: JSON-RPC error %d: %s", what, e.rpc.Code, e.rpc.Message)
	case e.empty:
		return what + " with an empty body"
	case e.status < 300:
		return fmt.Sprintf("%s %s, not a JSON-RPC message", what, cmp.Or(e.contentType, "without a content type"))
	}
	return what
}

// Unwrap exposes the JSON-RPC error, so that what looks for the server's
// verdict (errors.As) finds it.
func (e *HTTPError) Unwrap() error {
	if e.rpc == nil {
		return nil
	}
	return e.rpc
}

// Method is the request's Mcp-Method header ("" on 2025 servers).
func (e *HTTPError) Method() string { return e.method }

// Status is the answer's HTTP status.
func (e *HTTPError) Status() int { return e.status }

// ContentType is the answer's media type, without parameters.
func (e *HTTPError) ContentType() string { return e.contentType }

// Excerpt is the start of the answer's body: one line, escape-stripped,
// at most excerptRunes.
func (e *HTTPError) Excerpt() string { return e.excerpt }

// Empty says the body was empty (or blank).
func (e *HTTPError) Empty() bool { return e.empty }

// JSON says the body is JSON.
func (e *HTTPError) JSON() bool { return e.json }

// RPC is the JSON-RPC error in the body, or nil.
func (e *HTTPError) RPC() *jsonrpc.Error { return e.rpc }

// Credentials says the request carried an Authorization header.
func (e *HTTPError) Credentials() bool { return e.credentials }

// Challenge says the answer carried a WWW-Authenticate challenge: the
// server asks for credentials, or for other ones.
func (e *HTTPError) Challenge() bool { return e.challenge }

// PlainText is what a text body said, the way messages quote it: a
// text/plain body, or one that names no content type and is not JSON (a
// server's bare res.end("why"): Node sends it without one).
func (e *HTTPError) PlainText() string {
	if e.contentType != "text/plain" && (e.contentType != "" || e.json) {
		return ""
	}
	return e.excerpt
}

// ErrorBodyLimit bounds what is read of an answer that is not used.
const ErrorBodyLimit = 1 << 20

// newHTTPError records what req's answer resp carried; data is (the start
// of) its body.
func newHTTPError(req *http.Request, resp *http.Response, data []byte) *HTTPError {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	e := &HTTPError{
		method:      req.Header.Get("Mcp-Method"),
		status:      resp.StatusCode,
		contentType: ct,
		excerpt:     excerpt(data),
		empty:       len(bytes.TrimSpace(data)) == 0,
		json:        json.Valid(data),
		credentials: req.Header.Get("Authorization") != "",
		challenge:   resp.Header.Get("WWW-Authenticate") != "",
	}
	// Whatever the content type, as the SDK does: some servers send their
	// JSON-RPC errors as text/plain.
	if m, err := DecodeMessage(data); err == nil {
		if r, ok := m.(*jsonrpc.Response); ok {
			errors.As(r.Error, &e.rpc)
		}
	}
	return e
}

// readEvidence reads (a bounded part of) a body that will not be used,
// and closes it.
func readEvidence(body io.ReadCloser) []byte {
	data, _ := io.ReadAll(io.LimitReader(body, ErrorBodyLimit))
	body.Close()
	return data
}

// excerptRunes bounds an excerpt of a server's answer in a message.
const excerptRunes = 200

// excerpt is the start of a body as a message may quote it: terminal
// escapes stripped, whitespace folded onto one line, at most excerptRunes.
func excerpt(data []byte) string {
	s := strings.Join(strings.Fields(textsafe.StripControl(string(data[:min(len(data), 4<<10)]))), " ")
	if utf8.RuneCountInString(s) <= excerptRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == excerptRunes {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// Answered is the evidence of an answer with status, content type and body
// to a POST: what the RoundTripper would have recorded. Tests of what
// explains a failure build their evidence with it.
func Answered(status int, contentType string, body []byte) *HTTPError {
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/", nil)
	return newHTTPError(req, httpx.Response(req, status, contentType, body), body)
}
