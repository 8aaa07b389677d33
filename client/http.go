package client

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// maxBody bounds one HTTP response body; the SDK reads JSON bodies without
// a limit.
const maxBody = 64 << 20

// httpTransport adds configured headers to every request (the SDK has no
// field for them), caps response bodies, and remembers the last HTTP error
// status so a refusal can be reported as what it was (authentication, wrong
// endpoint, server failure) rather than as the SDK's transport error.
type httpTransport struct {
	base    http.RoundTripper
	headers http.Header

	mu        sync.Mutex
	errStatus int    // last status >= 400
	errMethod string // its Mcp-Method header, when the request had one

	cancelSent chan struct{} // closed once a cancellation was delivered
	cancelOnce sync.Once
}

func newHTTPTransport(base http.RoundTripper, headers http.Header) *httpTransport {
	return &httpTransport{base: base, headers: headers, cancelSent: make(chan struct{})}
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
	for k, vs := range t.headers {
		req.Header[k] = vs
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
