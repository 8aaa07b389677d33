// Package holdwire is what crosses a session's socket besides MCP: the
// methods an invocation sends its session's holder itself, the note the
// holder sends of what it dropped, the holder's verdicts on requests it
// could not deliver, and the words for a holder that runs without
// answering. The two sides are client/conn (every invocation's end) and
// client/hold (the holder's); both read this one definition, so neither
// reaches into the other.
package holdwire

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
)

// Methods an invocation of mcpc session sends the holder itself.
const (
	Stop   = "mcpc/session/stop"   // end the session
	Status = "mcpc/session/status" // StatusResult
)

// StatusResult is what the holder answers Status with.
type StatusResult struct {
	Requests int64  `json:"requests"` // requests passed on to the server
	IdleLeft string `json:"idleLeft"` // until the idle bound ends it; "" without one
	Attached int    `json:"attached"` // invocations attached now (this one among them)
	// Busy says every slot is taken: the question was answered while it
	// waited for one (lobby), and an invocation's waits too.
	Busy bool `json:"busy,omitempty"`
}

// ProbeWait bounds the answer to a holder's own question (its status,
// an invocation's handshake). The holder answers it itself, at once,
// whatever its server is doing: one silent that long is looked at
// (Silence).
const ProbeWait = 2 * time.Second

// Dropped is the holder's notification to an invocation that it dropped
// some of the server's notifications to it. Its params (DroppedParams)
// count them: "levels", log messages by level; "progress".
const Dropped = "notifications/mcpc/session/dropped"

// DroppedParams are a Dropped note's.
type DroppedParams struct {
	Levels   map[string]int64 `json:"levels,omitempty"`
	Progress int64            `json:"progress,omitempty"`
}

// DroppedShown is how many of what a Dropped note counts the invocation
// would have shown: the log messages at a level it shows, and with
// progress the progress.
func DroppedShown(params []byte, shown func(level string) bool, progress bool) int64 {
	var p DroppedParams
	if json.Unmarshal(params, &p) != nil {
		return 0
	}
	var n int64
	for lv, k := range p.Levels {
		if shown(lv) {
			n += k
		}
	}
	if progress {
		n += p.Progress
	}
	return n
}

// A request the holder could not deliver (an HTTP server's 401, 403 or
// 5xx, a connection refused) is explained by the holder, whose
// connection saw the failure, with the one-shot's explainer; the verdict
// crosses the socket in the data of a JSON-RPC error under FailureKey and
// is turned back into the same *fail.Error by the invocation (Verdict),
// so a command says through a session what it says without one: the same
// message, hint and exit code, never the server's rejection (exit 7).

// FailureKey names the holder's verdict in a JSON-RPC error's data. The
// holder drops an error's data that carries it from a server (Unforged),
// so only the holder's own verdicts arrive with it.
const FailureKey = "mcpc/failure"

// Failure is a failure a session's holder reports to an invocation,
// which re-raises it (Raise) with the holder's code, message and hint:
// to the invocation that started it in its report, to an attached one in
// the data of a JSON-RPC error (VerdictError). Both read the same JSON,
// so the two say a failure the same way.
type Failure struct {
	Code    fail.Code `json:"code"`
	Message string    `json:"message"`
	Hint    string    `json:"hint,omitempty"`
	// Fields are the failure's more --json members (fail.Error.Fields).
	Fields map[string]any `json:"fields,omitempty"`
}

// FailureOf is f as the holder reports it.
func FailureOf(f *fail.Error) *Failure {
	return &Failure{Code: f.Code, Message: f.Msg, Hint: f.Hint, Fields: f.Fields}
}

// Redacted is h with secrets replaced.
func (h *Failure) Redacted(secrets *redaction.Set) *Failure {
	return &Failure{Code: h.Code, Message: secrets.String(h.Message), Hint: secrets.String(h.Hint), Fields: h.Fields}
}

// Raise is the failure h reports, caused by err. A code this mcpc does
// not know (a holder of another version may name one) must not become an
// exit status: the failure is then mcpc's own. Nil when there is no
// failure or it has no message: a report that says nothing is none.
func (h *Failure) Raise(err error) *fail.Error {
	if h == nil || h.Message == "" {
		return nil
	}
	code := h.Code
	if !KnownCode(code) {
		code = fail.Internal
	}
	return &fail.Error{Code: code, Msg: h.Message, Hint: h.Hint, Err: err, Fields: h.Fields}
}

// VerdictError is the answer that carries f to the invocation.
func VerdictError(f *fail.Error) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]*Failure{FailureKey: FailureOf(f)})
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: f.Msg, Data: data}
}

// Unforged is a server's error as the holder passes it on: without its
// data when that claims to be the holder's verdict, since only the holder
// speaks for mcpc.
func Unforged(err error) error {
	var e *jsonrpc.Error
	if errors.As(err, &e) && rawmsg.View(e.Data).Get(gjson.Escape(FailureKey)).Exists() {
		return &jsonrpc.Error{Code: e.Code, Message: e.Message}
	}
	return err
}

// Verdict is the holder's verdict in rpc, when rpc carries one with a
// code mcpc knows; nil otherwise: an error that is no verdict mcpc can
// re-raise is explained as a server's. Only an invocation attached to a
// holder may believe one (a server's own error never carries it: the
// holder unforges them).
func Verdict(rpc *jsonrpc.Error, err error) *fail.Error {
	if rpc.Code != jsonrpc.CodeInternalError {
		return nil
	}
	raw := rawmsg.View(rpc.Data).Get(gjson.Escape(FailureKey))
	var v Failure
	if !raw.IsObject() || json.Unmarshal(rawmsg.Within(rpc.Data, raw), &v) != nil || !KnownCode(v.Code) {
		return nil
	}
	return v.Raise(err)
}

// KnownCode says whether code is one of mcpc's: a holder (perhaps of
// another mcpc version) names the code of its failures, and a code this
// mcpc does not know must not become an exit status.
func KnownCode(code fail.Code) bool {
	for _, c := range fail.Codes {
		if c.Code == code {
			return true
		}
	}
	return false
}

// Silence is why a holder that runs has not answered within ProbeWait,
// from what its process and its socket show.
type Silence int

const (
	SilenceUnknown Silence = iota // nothing tells (no /proc, no sock_diag)
	SilenceBusy                   // connections wait in its socket's backlog: it has not taken them
	SilenceStopped                // its process is stopped (SIGSTOP, a debugger)
	SilenceHung                   // it took the connection and says nothing
)

func (q Silence) String() string {
	switch q {
	case SilenceStopped:
		return "stopped"
	case SilenceHung:
		return "hung"
	case SilenceBusy:
		return "busy"
	}
	return "stopped or hung"
}
