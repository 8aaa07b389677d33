package hold

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// redacted is err, an error the holder passes to an invocation, with
// the holder's secrets replaced: the invocation prints it on stderr, whose
// redaction knows the invocation's secrets, not the proofs and refreshed
// tokens the holder sent. Data that no longer parses is dropped.
func (h *Holder) redacted(err error) error {
	var e *jsonrpc.Error
	secrets := h.secrets()
	if !errors.As(err, &e) || secrets == nil {
		return err
	}
	c := *e
	c.Message = secrets.String(e.Message)
	if len(e.Data) > 0 {
		c.Data, _ = h.redactedJSON(e.Data)
	}
	return &c
}

// secrets are the holder's connection's; nil: none known.
func (h *Holder) secrets() *redact.Set {
	if h.s == nil {
		return nil
	}
	return h.s.Secrets()
}

// redactedJSON is raw with the holder's secrets replaced (their JSON
// forms are registered, so a secret in a string leaves it valid JSON);
// nil and false when what is left does not parse.
func (h *Holder) redactedJSON(raw json.RawMessage) (json.RawMessage, bool) {
	secrets := h.secrets()
	if secrets == nil || len(raw) == 0 {
		return raw, true
	}
	out := json.RawMessage(secrets.String(string(raw)))
	if !json.Valid(out) {
		return nil, false
	}
	return out, true
}

// A fault in one call stays in that call (mcpc help sessions). A message
// of the server's that is framed but cannot be read (over the session's
// --max-message, nested deeper than transport.MaxDepth) is read to its
// end and dropped (Tap.Unreadable): the request it answered fails with
// the one-shot's words and that the session goes on. A line that is not
// JSON breaks stdio's framing: what follows may be the rest of a message
// as well as a message, and which request it answered cannot be told, so
// no reader can resynchronise; nor can it after a line over the limit
// that goes on past transport.UnframedSpan times it without its end (a
// server writing without end). The session ends there, and each request
// in flight fails with the one-shot's words and the session's end.

// unreadable fails the request whose answer could not be read (err: the
// limit it broke; id: the message's, as JSON text), keeping the session.
func (h *Holder) unreadable(err error, id json.RawMessage) {
	var key string
	json.Unmarshal(id, &key)
	f := h.limitExplained(err)
	h.mu.Lock()
	r := h.calls[key]
	if r != nil {
		h.forget(key, r)
		h.last = time.Now()
	}
	h.mu.Unlock()
	if r == nil {
		// A notification, or a request of the server's: nobody waits
		// for it by an id of the holder's.
		if h.Log != nil {
			h.Log(f.Msg + ": it answered no request in flight and was dropped")
		}
		return
	}
	h.lists.answered(key, &jsonrpc.Response{Error: f})
	h.dropped(r, f)
}

// dropped fails r, whose answer broke a limit (f says which), keeping
// the session: on stdio the message was read to its end and dropped, on
// HTTP its body or stream was.
func (h *Holder) dropped(r *route, f *fail.Error) {
	f.Msg += fmt.Sprintf("; %s dropped it and goes on", h.sessionName())
	r.a.send(&jsonrpc.Response{ID: r.id, Error: holdwire.VerdictError(f)})
}

// limitExplained is the one-shot's words for err, the limit a message
// broke, with the way to raise a session's.
func (h *Holder) limitExplained(err error) *fail.Error {
	return h.s.LimitExplained(err, limitRaise)
}

// limitRaise is how a session's --max-message is raised.
const limitRaise = "the session's limit is set when it starts: stop it and start it again with"

// framingBroken says why the session ends when the server broke stdio's
// framing ("" when it did not): a line that is not JSON, or one over the
// size limit that went on past transport.UnframedSpan times it without
// its end. Each request in flight then fails with the one-shot's words
// and the session's end.
func (h *Holder) framingBroken() (why string) {
	f, how, why := h.s.FramingBroken(limitRaise)
	if f == nil {
		return ""
	}
	f.Msg += fmt.Sprintf("; %s ended: %s", h.sessionName(), how)
	h.mu.Lock()
	routes := make([]*route, 0, len(h.calls))
	for hid, r := range h.calls {
		routes = append(routes, r)
		h.forget(hid, r)
	}
	h.mu.Unlock()
	for _, r := range routes {
		r.a.send(&jsonrpc.Response{ID: r.id, Error: holdwire.VerdictError(f)})
	}
	return why
}

// watchFraming ends the session once a stdio server's stdout broke the
// framing, rather than at the server's exit: a server that goes on
// running after it (the SDK's connection is closed, so nothing it writes
// is read) would keep every call waiting.
func (h *Holder) watchFraming() {
	if h.s.HTTP() {
		return
	}
	go func() {
		h.s.Wait() // the connection ended: the holder's own close, or a read that failed
		if why := h.framingBroken(); why != "" {
			h.end(why)
		}
	}()
}

// sessionName is how the holder's messages name its session.
func (h *Holder) sessionName() string {
	if h.Name == "" {
		return "the session"
	}
	return "session " + textsafe.Name(h.Name)
}
