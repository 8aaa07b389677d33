package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// Own is what one of mcpc's own requests (beside the SDK) carries besides
// the configured headers: the protocol revision, the 2025 session it
// belongs to (which may be one remembered from an earlier invocation,
// which the SDK cannot resume), and on a 2026-07-28 server the method and
// name it is routed by.
type Own struct {
	Protocol, SessionID string
	Method, Name        string // Mcp-Method and Mcp-Name; "": not sent
}

// PostOwn POSTs one JSON-RPC message of mcpc's own to endpoint through
// OwnClient (the configured headers, credentials and redirect policy).
func (t *HTTP) PostOwn(ctx context.Context, endpoint string, data []byte, h Own) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if h.Method != "" {
		req.Header.Set("Mcp-Method", h.Method)
		if h.Name != "" {
			req.Header.Set("Mcp-Name", HeaderValue(h.Name))
		}
	}
	return t.doOwn(req, h)
}

// relayKey marks a request a session's holder relays for an invocation.
type relayKey struct{}

// Relay marks ctx's requests as relayed by a session's holder: the
// invocation's own wire has seen each message (its cache, its trace
// context), so the holder's does not see it again on the way out, and
// what comes back goes to the holder's routes (Tap.Divert).
func Relay(ctx context.Context) context.Context { return context.WithValue(ctx, relayKey{}, true) }

func relayed(ctx context.Context) bool { return ctx.Value(relayKey{}) != nil }

// EndSession DELETEs a 2025 session (one kept for detached tasks). A
// server that no longer knows it (404) or does not let clients end
// sessions (405) leaves nothing to do.
func (t *HTTP) EndSession(ctx context.Context, endpoint string, h Own) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, endpoint, nil)
	if err != nil {
		return err
	}
	resp, err := t.doOwn(req, h)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return nil
}

// doOwn sends one of mcpc's own requests with the protocol version, the
// session id and the OAuth handler's token.
func (t *HTTP) doOwn(req *http.Request, h Own) (*http.Response, error) {
	req.Header.Set("Mcp-Protocol-Version", h.Protocol)
	if h.SessionID != "" {
		req.Header.Set("Mcp-Session-Id", h.SessionID)
	}
	if err := t.oauthToken(req); err != nil {
		return nil, err
	}
	if t.oauthHandler == nil || t.HasAuthorization() {
		return t.OwnClient().Do(req)
	}
	// A challenge goes to the OAuth handler as the SDK's requests' do (a
	// token expired or revoked early: a refresh under the server's lock,
	// or the verdict, exit 4 with the login hint), then the request is
	// sent once more, with the new token; the retry's challenge is the
	// server's verdict. A session's holder relays every invocation's
	// requests this way, for as long as it lives.
	resp, err := t.OwnClient().Do(req.WithContext(context.WithValue(req.Context(), challengeKey{}, true)))
	if err != nil || resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return resp, err
	}
	if err := t.oauthHandler.Authorize(req.Context(), req, resp); err != nil {
		return nil, err
	}
	retry := req.Clone(req.Context())
	if req.GetBody != nil {
		if retry.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	retry.Header.Del("Authorization")
	if err := t.oauthToken(retry); err != nil {
		return nil, err
	}
	return t.OwnClient().Do(retry)
}

// challengeKey marks the first sending of one of mcpc's own requests: a
// challenge to it is handed back to doOwn (refused), not made an error.
type challengeKey struct{}

// Answer POSTs mcpc's answer to a request the server sent on the stream
// of one of mcpc's own requests. An error status is named as a refusal of
// the answer (label names the server); what the server then writes is
// read and dropped.
func (t *HTTP) Answer(ctx context.Context, endpoint string, resp *jsonrpc.Response, h Own, label string) error {
	data, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return err
	}
	r, err := t.PostOwn(ctx, endpoint, data, h)
	if he := (*HTTPError)(nil); errors.As(err, &he) && he.RPC() == nil {
		return &fail.Error{Code: fail.HTTPStatus, Err: err, Msg: fmt.Sprintf("%s refused mcpc's answer to its question (HTTP %d)", label, he.Status())}
	}
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(r.Body, ErrorBodyLimit))
	r.Body.Close()
	return nil
}
