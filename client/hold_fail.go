package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// A request the holder could not deliver (an HTTP server's 401, 403 or
// 5xx, a connection refused) is explained by the holder, whose session
// saw the failure, with the one-shot's explainer; the verdict crosses the
// socket in the data of a JSON-RPC error under heldFailureKey and is
// turned back into the same *fail.Error by the invocation (heldVerdict),
// so a command says through a session what it says without one: the same
// message, hint and exit code, never the server's rejection (exit 7).

// heldFailureKey names the holder's verdict in a JSON-RPC error's data.
// The holder drops an error's data that carries it from a server
// (unforged), so only the holder's own verdicts arrive with it.
const heldFailureKey = "mcpc/failure"

// HeldFailure is a failure a session's holder reports to an invocation,
// which re-raises it (raise) with the holder's code, message and hint:
// to the invocation that started it in its HolderReport, to an attached
// one in the data of a JSON-RPC error (verdictError). Both read the same
// JSON, so the two say a failure the same way.
type HeldFailure struct {
	Code    fail.Code `json:"code"`
	Message string    `json:"message"`
	Hint    string    `json:"hint,omitempty"`
}

// heldFailure is f as the holder reports it.
func heldFailure(f *fail.Error) *HeldFailure {
	return &HeldFailure{Code: f.Code, Message: f.Msg, Hint: f.Hint}
}

// redacted is h with secrets replaced.
func (h *HeldFailure) redacted(secrets *redaction.Set) *HeldFailure {
	return &HeldFailure{Code: h.Code, Message: secrets.String(h.Message), Hint: secrets.String(h.Hint)}
}

// raise is the failure h reports, caused by err. A code this mcpc does
// not know (a holder of another version may name one) must not become an
// exit status: the failure is then mcpc's own. Nil when there is no
// failure or it has no message: a report that says nothing is none.
func (h *HeldFailure) raise(err error) *fail.Error {
	if h == nil || h.Message == "" {
		return nil
	}
	code := h.Code
	if !knownCode(code) {
		code = fail.Internal
	}
	return &fail.Error{Code: code, Msg: h.Message, Hint: h.Hint, Err: err}
}

// verdictError is the answer that carries f to the invocation.
func verdictError(f *fail.Error) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]*HeldFailure{heldFailureKey: heldFailure(f)})
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: f.Msg, Data: data}
}

// redacted is err, an error the holder passes to an invocation, with
// the holder's secrets replaced: the invocation prints it on stderr, whose
// redaction knows the invocation's secrets, not the proofs and refreshed
// tokens the holder sent. Data that no longer parses is dropped.
func (h *Holder) redacted(err error) error {
	var e *jsonrpc.Error
	if !errors.As(err, &e) || h.s.secrets == nil {
		return err
	}
	c := *e
	c.Message = h.s.secrets.String(e.Message)
	if len(e.Data) > 0 {
		c.Data, _ = h.redactedJSON(e.Data)
	}
	return &c
}

// redactedJSON is raw with the holder's secrets replaced (their JSON
// forms are registered, so a secret in a string leaves it valid JSON);
// nil and false when what is left does not parse.
func (h *Holder) redactedJSON(raw json.RawMessage) (json.RawMessage, bool) {
	if h.s == nil || h.s.secrets == nil || len(raw) == 0 {
		return raw, true
	}
	out := json.RawMessage(h.s.secrets.String(string(raw)))
	if !json.Valid(out) {
		return nil, false
	}
	return out, true
}

// unforged is a server's error as the holder passes it on: without its
// data when that claims to be the holder's verdict, since only the holder
// speaks for mcpc.
func unforged(err error) error {
	var e *jsonrpc.Error
	if errors.As(err, &e) && rawmsg.View(e.Data).Get(gjson.Escape(heldFailureKey)).Exists() {
		return &jsonrpc.Error{Code: e.Code, Message: e.Message}
	}
	return err
}

// heldVerdict is the holder's verdict in rpc, when the session is held
// and rpc carries one with a code mcpc knows; nil otherwise: an error
// that is no verdict mcpc can re-raise is explained as a server's.
func (s *Session) heldVerdict(rpc *jsonrpc.Error, err error) *fail.Error {
	if s.sock == nil || rpc.Code != jsonrpc.CodeInternalError {
		return nil
	}
	raw := rawmsg.View(rpc.Data).Get(gjson.Escape(heldFailureKey))
	var v HeldFailure
	if !raw.IsObject() || json.Unmarshal(rawmsg.Within(rpc.Data, raw), &v) != nil || !knownCode(v.Code) {
		return nil
	}
	return v.raise(err)
}

// knownCode says whether code is one of mcpc's: a holder (perhaps of
// another mcpc version) names the code of its failures, and a code this
// mcpc does not know must not become an exit status.
func knownCode(code fail.Code) bool {
	for _, c := range fail.Codes {
		if c.Code == code {
			return true
		}
	}
	return false
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
	r.a.send(&jsonrpc.Response{ID: r.id, Error: verdictError(f)})
}

// limitExplained is the one-shot's words for err, the limit a message
// broke, with the way to raise a session's.
func (h *Holder) limitExplained(err error) *fail.Error {
	return h.s.limitExplained(err, "the session's limit is set when it starts: stop it and start it again with")
}

// framingBroken says why the session ends when the server broke stdio's
// framing ("" when it did not): a line that is not JSON, or one over the
// size limit that went on past transport.UnframedSpan times it without
// its end. Each request in flight then fails with the one-shot's words
// and the session's end.
func (h *Holder) framingBroken() (why string) {
	if h.s.proc == nil {
		return ""
	}
	var f *fail.Error
	var how string
	if pe := h.s.proc.ProtocolError(); pe != nil {
		f, how = h.s.protocolFailure(pe), "a stdio stream cannot be resynchronised after a line that is not JSON"
		why = pe.Error() + "; a stdio stream cannot be resynchronised after it"
	} else if h.s.wire.tap.LimitErr() == transport.ErrUnframed {
		f = h.limitExplained(transport.ErrTooLarge)
		how = fmt.Sprintf("the line went on past %d times the limit without its end, and a stdio stream cannot be resynchronised after that", transport.UnframedSpan)
		why = fmt.Sprintf("the server wrote a line over the %s limit that went on past %d times it without its end; a stdio stream cannot be resynchronised after it",
			units.SizeText(h.s.maxMessage), transport.UnframedSpan)
	} else {
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
		r.a.send(&jsonrpc.Response{ID: r.id, Error: verdictError(f)})
	}
	return why
}

// watchFraming ends the session once a stdio server's stdout broke the
// framing, rather than at the server's exit: a server that goes on
// running after it (the SDK's connection is closed, so nothing it writes
// is read) would keep every call waiting.
func (h *Holder) watchFraming() {
	if h.s.proc == nil || h.s.CS == nil {
		return
	}
	go func() {
		h.s.CS.Wait() // the connection ended: the holder's own close, or a read that failed
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
