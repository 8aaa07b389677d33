package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// The 2024-11-05 HTTP+SSE transport: a GET opens an event stream whose
// first event, "endpoint", names where the client POSTs its messages; every
// answer comes on that stream. mcpc opens the stream itself (OpenSSE) to
// judge the endpoint before anything is posted, then hands the open stream
// to the SDK's SSEClientTransport, whose own GET it answers (roundTrip), so
// the server sees one GET. Everything else (headers to the configured
// origin only, redirects, limits, the tap, traces) is the HTTP transport's
// as on Streamable HTTP.

// ErrNotSSE says a URL does not serve the HTTP+SSE transport: its GET was
// not answered with an event stream whose first event is "endpoint".
var ErrNotSSE = errors.New("not an HTTP+SSE endpoint")

// OpenSSE sends the transport's GET to endpoint and reads the first event.
// When it announces a message endpoint on the configured origin, the stream
// is held for the SDK's GET and the transport switches to the HTTP+SSE
// rules; an endpoint elsewhere is refused (fail.Redirect) before anything
// is posted. An error status is an *HTTPError (a challenge goes to the
// OAuth handler first, as the SDK would send it); anything else that is
// not such a stream is ErrNotSSE. bound (the connect timeout) and ctx
// bound the wait for the stream's start; once open, it lives until the
// session closes it: the answers to the invocation's end (the
// cancellation an interrupt sends) come on it.
func (t *HTTP) OpenSSE(ctx, bound context.Context, endpoint string) error {
	sctx, end := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(bound, func() { end(context.Cause(bound)) })
	err := t.openSSE(sctx, endpoint, end)
	if !stop() && err != nil && bound.Err() != nil && ctx.Err() == nil {
		err = context.Cause(bound)
	}
	if err != nil || !t.SSE() {
		end(nil)
	}
	return err
}

func (t *HTTP) openSSE(ctx context.Context, endpoint string, end context.CancelCauseFunc) error {
	resp, req, err := t.getStream(ctx, endpoint)
	if err != nil {
		return err
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		if t.oauthHandler != nil && !t.HasAuthorization() {
			if err := t.oauthHandler.Authorize(ctx, req, resp); err != nil {
				return err
			}
			if resp, req, err = t.getStream(ctx, endpoint); err != nil {
				return err
			}
		}
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return newHTTPError(req, resp, readEvidence(resp.Body))
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "text/event-stream" {
		resp.Body.Close()
		return ErrNotSSE
	}
	// The body has passed the tap (sseTap): its events are bounded and
	// each message was seen; what is read here is its output.
	events := NewEventReader(resp.Body, int(t.maxMessage))
	ev, err := events.Next()
	if err != nil || ev.Name() != "endpoint" || len(ev.Data) == 0 {
		resp.Body.Close()
		if err != nil && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if errors.Is(err, ErrTooLarge) {
			return err
		}
		return ErrNotSSE
	}
	at, err := req.URL.Parse(strings.TrimSpace(string(ev.Data)))
	if err != nil {
		resp.Body.Close()
		return fail.Wrap(fail.Protocol, err, "", "%s announced a message endpoint that is not a URL", t.label)
	}
	if err := t.sameOrigin(at, "announced its message endpoint"); err != nil {
		resp.Body.Close()
		return err
	}
	// The SDK reads the stream from its start: the endpoint event again,
	// then what the reader holds, then the rest.
	replay := "event: endpoint\ndata: " + string(ev.Data) + "\n\n"
	resp.Body = heldBody{io.MultiReader(strings.NewReader(replay), bytes.NewReader(events.buf), resp.Body), resp.Body, end}
	t.mu.Lock()
	t.held, t.heldURL, t.sse = resp, req.URL.String(), true
	t.mu.Unlock()
	t.tap.trace("HTTP+SSE: the server announced its message endpoint %s", urlx.Redact(at.String()))
	return nil
}

// getStream sends the transport's GET, with a token from the OAuth
// handler when there is one.
func (t *HTTP) getStream(ctx context.Context, endpoint string) (*http.Response, *http.Request, error) {
	req, err := http.NewRequestWithContext(context.WithValue(ctx, openingSSE{}, true), http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if err := t.oauthToken(req); err != nil {
		return nil, nil, err
	}
	resp, err := t.Client().Do(req)
	if err != nil {
		return nil, nil, err
	}
	return resp, req, nil
}

// takeHeld answers the SDK's GET with the stream OpenSSE opened, once.
func (t *HTTP) takeHeld(req *http.Request) *http.Response {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.held == nil || req.Method != http.MethodGet || req.URL.String() != t.heldURL {
		return nil
	}
	resp := t.held
	t.held = nil
	resp.Request = req
	return resp
}

// sameOrigin refuses a URL mcpc would send to off the configured origin
// (or over plain http off loopback): headers and tokens were configured
// for that origin. what says how the server named the URL.
func (t *HTTP) sameOrigin(u *url.URL, what string) error {
	switch to := urlx.Origin(u); {
	case u.Scheme == "http" && !urlx.IsLoopback(u.Hostname()):
		return fail.New(fail.Redirect, "mcpc never sends a request over plain http off loopback; ask the server's operator to fix it",
			"%s %s on plain http on a non-loopback host (%s → %s); refused", t.label, what, t.origin, to)
	case to != t.origin:
		return fail.New(fail.Redirect, "mcpc posts only to the configured origin, where headers and credentials go; ask the server's operator to announce an endpoint on "+t.origin,
			"%s %s on another origin (%s → %s); refused, nothing was sent there", t.label, what, t.origin, to)
	}
	return nil
}

// oauthToken sets the OAuth handler's token on an HTTP+SSE request: the
// SDK's SSEClientTransport has no handler of its own.
func (t *HTTP) oauthToken(req *http.Request) error {
	if t.oauthHandler == nil || t.HasAuthorization() || req.Header.Get("Authorization") != "" {
		return nil
	}
	ts, err := t.oauthHandler.TokenSource(req.Context())
	if err != nil || ts == nil {
		return err
	}
	tok, err := ts.Token()
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return nil
}

// SSE reports whether the transport speaks HTTP+SSE (OpenSSE succeeded).
func (t *HTTP) SSE() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sse
}

// heldBody is the held stream: closing it ends its request too.
type heldBody struct {
	io.Reader
	body io.Closer
	end  context.CancelCauseFunc
}

func (b heldBody) Close() error {
	err := b.body.Close()
	b.end(nil)
	return err
}
