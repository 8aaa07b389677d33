package hold

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// The holder of an HTTP session routes as it does on stdio; only how a
// message reaches the server differs. What the stdio holder writes beside
// the SDK on the server's stdin, the HTTP holder posts beside the SDK
// (relay): with the session's Mcp-Session-Id (2025: one session for
// every invocation, never an initialize per call) or the routing headers
// (2026-07-28, stateless: each request stands alone), with the configured
// headers and the credentials' current token (transport.HTTP.PostOwn: the
// one-shot's origin policy, limits, DPoP and refresh). What the server
// sends back, on the request's own answer or the SDK's standalone stream,
// passes the tap, which hands it to the same routes (Tap.Divert).

// relay posts msg. A request is posted in the background, since its
// stream lasts as long as the request does; a failure to deliver it is
// its invocation's answer (relayFailed).
func (h *Holder) relay(ctx context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() {
		return h.post(ctx, msg)
	}
	hid, _ := req.ID.Raw().(string)
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	h.mu.Lock()
	if r := h.calls[hid]; r != nil {
		r.cancel = cancel
	}
	h.mu.Unlock()
	go func() {
		defer cancel()
		err := h.post(rctx, msg)
		if rctx.Err() != nil {
			return // answered (its route forgotten) or cancelled
		}
		if err == nil {
			err = fmt.Errorf("%s ended the answer's stream without answering", h.s.Label())
		}
		h.relayFailed(hid, err)
	}()
	return nil
}

// post sends one message and reads what comes back to its end: each
// message in it reaches the routes as the tap reads it.
func (h *Holder) post(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	var method, name string
	if r, ok := msg.(*jsonrpc.Request); ok && h.s.Modern() {
		method, name = r.Method, routedName(r)
	}
	resp, err := h.s.Post(ctx, data, method, name)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// Each event is bounded by the tap (--max-message); an answer's
	// stream ends with its answer, or when the invocation goes away.
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// routedName is the Mcp-Name a 2026-07-28 request is routed by: the
// tool's or prompt's name, the resource's URI.
func routedName(r *jsonrpc.Request) string {
	switch r.Method {
	case "tools/call", "prompts/get":
		return rawmsg.View(r.Params).Get("name").String()
	case "resources/read":
		return rawmsg.View(r.Params).Get("uri").String()
	}
	return ""
}

// relayFailed answers a request that could not be delivered. A 2025
// server that no longer knows the session (404) has lost what it held:
// the session ends, said as a stdio server's exit is, and the invocation
// gets no answer (it names the session's end). Anything else is the
// request's failure, explained as a one-shot's would be and carried to
// the invocation as such (verdictError).
func (h *Holder) relayFailed(hid string, err error) {
	h.mu.Lock()
	r := h.calls[hid]
	if r != nil {
		h.forget(hid, r)
	}
	h.mu.Unlock()
	if r == nil {
		return
	}
	if errors.Is(err, transport.ErrTooLarge) || errors.Is(err, transport.ErrTooDeep) {
		h.dropped(r, h.limitExplained(limitOf(err))) // the session goes on
		return
	}
	var he *transport.HTTPError
	if errors.As(err, &he) && he.Status() == http.StatusNotFound && h.s.HTTPSession() != "" {
		h.end(fmt.Sprintf("%s no longer knows the session (HTTP 404): the server restarted or let it expire", h.s.Label()))
		return
	}
	if rpc := serverVerdict(he); rpc != nil {
		// The server's own JSON-RPC error, which a 2026-07-28 server
		// sends with a 4xx status: the invocation gets it as the server
		// sent it, as over stdio, and explains it as it would any
		// server's (serve lends it byte for byte).
		r.a.send(&jsonrpc.Response{ID: r.id, Error: h.redacted(rpc)})
		return
	}
	// Said as the one-shot says it (fail.go): the holder's session
	// is the one that saw the failure, and its explainer is the one-shot's.
	f := fail.As(h.s.Explain(context.Background(), "relay a request to", err))
	if f == nil {
		f = fail.Wrap(fail.Connection, errors.New(h.s.Scrub(err)), "", "the request did not reach %s", h.s.Label())
	}
	r.a.send(&jsonrpc.Response{ID: r.id, Error: h.redacted(holdwire.VerdictError(f))})
}

// serverVerdict is the JSON-RPC error a failed POST's answer carries, when
// it is the server's verdict on the request rather than on the
// connection: not an authorization refusal (401, 403), which the
// one-shot's explainer turns into a login hint.
func serverVerdict(he *transport.HTTPError) *jsonrpc.Error {
	if he == nil || he.RPC() == nil || he.Status() == http.StatusUnauthorized || he.Status() == http.StatusForbidden {
		return nil
	}
	return he.RPC()
}

// end says the server is gone (an HTTP session lost, a stdio server
// that stopped reading), once.
func (h *Holder) end(why string) {
	h.lostOnce.Do(func() {
		h.lost = why
		close(h.lostC)
	})
}

// streamCancels says a request is cancelled by closing its stream, not
// by notifications/cancelled: a 2026-07-28 HTTP server's way.
func (h *Holder) streamCancels() bool { return h.s.HTTP() && h.s.Modern() }

// limitOf is the limit err says a message broke.
func limitOf(err error) error {
	if errors.Is(err, transport.ErrTooDeep) {
		return transport.ErrTooDeep
	}
	return transport.ErrTooLarge
}
