package client

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// maxBody bounds one HTTP response body; the SDK reads JSON bodies without
// a limit.
const maxBody = 64 << 20

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
	errStatus int    // last status >= 400
	errMethod string // its Mcp-Method header, when the request had one
	refused   *fail.Error

	cancelSent chan struct{} // closed once a cancellation was delivered
	cancelOnce sync.Once
}

func newHTTPTransport(base http.RoundTripper, endpoint *url.URL, label string, headers http.Header) *httpTransport {
	return &httpTransport{base: base, headers: headers, origin: originOf(endpoint), label: label, cancelSent: make(chan struct{})}
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

// isCancellation reports whether req carries notifications/cancelled. Modern
// requests name their method in a header; older ones only in the body,
// which the SDK sends as a small, re-readable buffer.
func isCancellation(req *http.Request) bool {
	if m := req.Header.Get("Mcp-Method"); m != "" {
		return m == "notifications/cancelled"
	}
	if req.GetBody == nil || req.ContentLength <= 0 || req.ContentLength > 4096 {
		return false
	}
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	b, _ := io.ReadAll(body)
	return bytes.Contains(b, cancelMethod)
}

func (t *httpTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if originOf(req.URL) == t.origin {
		for k, vs := range t.headers {
			req.Header[k] = vs
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 300 && isCancellation(req) {
		t.cancelOnce.Do(func() { close(t.cancelSent) })
	}
	if resp.StatusCode >= 400 {
		t.mu.Lock()
		t.errStatus, t.errMethod = resp.StatusCode, req.Header.Get("Mcp-Method")
		t.mu.Unlock()
	}
	resp.Body = &limitedBody{rc: resp.Body, left: maxBody}
	return resp, nil
}

func (t *httpTransport) lastError() (int, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.errStatus, t.errMethod
}

type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("response body exceeds %d MiB", maxBody>>20)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }
