package conn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// Relay is a connection as the holder of a session uses it (client/hold):
// the one seam between the two. The holder takes the server's messages
// off the connection (Divert), writes or posts the invocations' messages
// beside the SDK's own client, and explains failures with the one-shot's
// explainer; it reaches nothing else of the connection.
type Relay struct{ c *Conn }

// ErrNotHeld is Relay's refusal of a connection no holder can hold: one
// over the 2024-11-05 HTTP+SSE transport, whose answers all come on the
// one stream the SDK reads.
var ErrNotHeld = errors.New("a session holds a stdio or Streamable HTTP server; HTTP+SSE (2024-11-05) is not held")

// Relay is c as a holder relays it; ErrNotHeld for HTTP+SSE.
func (c *Conn) Relay() (*Relay, error) {
	if c.proc == nil && (c.http == nil || c.sse) {
		return nil, ErrNotHeld
	}
	return &Relay{c: c}, nil
}

// Label is how messages name the server.
func (r *Relay) Label() string { return r.c.Label }

// HTTP says the server is reached over Streamable HTTP (Post), not a
// stdio process (WriteStdin).
func (r *Relay) HTTP() bool { return r.c.http != nil }

// Modern says the server speaks 2026-07-28.
func (r *Relay) Modern() bool { return r.c.modern() }

// ProtocolVersion is the revision the connection speaks.
func (r *Relay) ProtocolVersion() string { return r.c.ProtocolVersion() }

// MaxMessage bounds one message (--max-message), both ways.
func (r *Relay) MaxMessage() int64 { return r.c.maxMessage }

// Secrets are the connection's: what the holder relays joins them, and
// what it tells its invocations is redacted by them. Nil: none known.
func (r *Relay) Secrets() *redact.Set { return r.c.secrets }

// Envelope is the _meta every request of the connection carries.
func (r *Relay) Envelope() map[string]any { return r.c.envelope() }

// Handshake is what the server answered the connection's handshake with:
// its initialize result (2025 revisions) and its server/discover result
// (2026-07-28, perhaps replayed from the era memo); nil when none.
func (r *Relay) Handshake() (initialize, discover json.RawMessage) {
	w := r.c.wire
	if res := w.Results("initialize"); len(res) > 0 {
		initialize = res[len(res)-1]
	}
	w.mu.Lock()
	discover = w.lastDiscover
	w.mu.Unlock()
	if d := w.Results("server/discover"); discover == nil && len(d) > 0 {
		discover = d[len(d)-1]
	}
	return initialize, discover
}

// Divert sends every message from the server to fn first (the holder's
// routes); fn says whether the SDK's client is to see it too. Unreadable
// is told of each message read to its end and dropped (over the limit,
// too deep), with its id as JSON text.
func (r *Relay) Divert(fn func(jsonrpc.Message) bool, unreadable func(err error, id json.RawMessage)) {
	r.c.wire.tap.Divert(fn)
	r.c.wire.tap.Unreadable(unreadable)
}

// WriteStdin writes msg to the stdio server, beside the SDK's client.
func (r *Relay) WriteStdin(ctx context.Context, msg jsonrpc.Message) error {
	return r.c.wire.tap.Side.Send(ctx, msg)
}

// Post posts one message to the HTTP server with the connection's
// headers; method and name are a 2026-07-28 request's Mcp-Method and
// Mcp-Name ("" for anything else).
func (r *Relay) Post(ctx context.Context, data []byte, method, name string) (*http.Response, error) {
	own := transport.Own{Protocol: r.c.ProtocolVersion(), SessionID: r.c.httpSession(), Method: method, Name: name}
	return r.c.http.PostOwn(transport.Relay(ctx), r.c.Entry.Server.URL, data, own)
}

// HTTPSession is the HTTP server's Mcp-Session-Id ("" without one).
func (r *Relay) HTTPSession() string { return r.c.httpSession() }

// Server is the stdio server's process; nil over HTTP.
func (r *Relay) Server() *transport.Process { return r.c.proc }

// Wait returns once the SDK's connection has ended (a stdio server's
// output closed or broken, the connection closed); at once over HTTP.
func (r *Relay) Wait() {
	if r.c.proc != nil && r.c.CS != nil {
		r.c.CS.Wait()
	}
}

// FramingBroken is the one-shot's failure when the stdio server broke
// the stream's framing, how the connection ends for it (how: to each call
// in flight; why: for the connection's end); nil when it did not.
func (r *Relay) FramingBroken(raise string) (f *fail.Error, how, why string) {
	s := r.c
	if s.proc == nil {
		return nil, "", ""
	}
	if pe := s.proc.ProtocolError(); pe != nil {
		return s.protocolFailure(pe), "a stdio stream cannot be resynchronised after a line that is not JSON",
			pe.Error() + "; a stdio stream cannot be resynchronised after it"
	}
	if s.wire.tap.LimitErr() == transport.ErrUnframed {
		return s.limitExplained(transport.ErrTooLarge, raise),
			fmt.Sprintf("the line went on past %d times the limit without its end, and a stdio stream cannot be resynchronised after that", transport.UnframedSpan),
			fmt.Sprintf("the server wrote a line over the %s limit that went on past %d times it without its end; a stdio stream cannot be resynchronised after it",
				units.SizeText(s.maxMessage), transport.UnframedSpan)
	}
	return nil, "", ""
}

// LimitExplained is the one-shot's words for err, the limit a message
// broke, with raise saying how to raise it.
func (r *Relay) LimitExplained(err error, raise string) *fail.Error {
	return r.c.limitExplained(err, raise)
}

// Explain is the one-shot's explanation of err, a failure to do what to
// the server.
func (r *Relay) Explain(ctx context.Context, what string, err error) error {
	return r.c.explain(ctx, what, err)
}

// Scrub is err's text without the connection's secrets.
func (r *Relay) Scrub(err error) string { return r.c.scrub(err) }
