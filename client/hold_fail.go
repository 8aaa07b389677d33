package client

import (
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
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

// heldFailure is the verdict as it crosses the socket.
type heldFailure struct {
	Code    fail.Code `json:"code"`
	Message string    `json:"message"`
	Hint    string    `json:"hint,omitempty"`
}

// verdictError is the answer that carries f to the invocation.
func verdictError(f *fail.Error) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]heldFailure{heldFailureKey: {f.Code, f.Msg, f.Hint}})
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
// and rpc carries one with a code mcpc knows; nil otherwise.
func (s *Session) heldVerdict(rpc *jsonrpc.Error, err error) *fail.Error {
	if s.sock == nil || rpc.Code != jsonrpc.CodeInternalError {
		return nil
	}
	raw := rawmsg.View(rpc.Data).Get(gjson.Escape(heldFailureKey))
	var v heldFailure
	if !raw.IsObject() || json.Unmarshal(rawmsg.Within(rpc.Data, raw), &v) != nil || v.Message == "" {
		return nil
	}
	if !knownCode(v.Code) {
		return nil
	}
	return &fail.Error{Code: v.Code, Msg: v.Message, Hint: v.Hint, Err: err}
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
