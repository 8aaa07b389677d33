package serve

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpc-dev/mcpc/internal/redact"
)

// CallLog is serve's --log: one JSON text a line for each request a
// downstream client sends, appended to a file as the answer comes (or
// serve refuses it, or the client goes before it). Each line is one
// write to a file opened O_APPEND, so the lines of serve processes
// sharing the file never interleave; none is longer than MaxLogLine.
// Every line passes the invocation's redaction set.
type CallLog struct {
	mu        sync.Mutex
	f         *os.File
	secrets   *redact.Set
	arguments bool
}

// MaxLogLine bounds one line of the call log; what would make a line
// longer (a tool's arguments) is left out and said to be.
const MaxLogLine = 16 << 10

// maxLogField bounds a name or an error message in a line.
const maxLogField = 512

// OpenCallLog opens path for appending, created private (0600): tool
// names and arguments are the user's. With arguments the lines hold
// each call's arguments (--log-arguments).
func OpenCallLog(path string, secrets *redact.Set, arguments bool) (*CallLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	return &CallLog{f: f, secrets: secrets, arguments: arguments}, nil
}

// Close closes the file.
func (l *CallLog) Close() error { return l.f.Close() }

// A logLine is one line of the call log. Outcome is "ok", "error" (the
// server answered with a JSON-RPC error: Code, Error), "tool-error" (a
// tool's result with isError), "refused" (serve answered: Error says
// why) or "unanswered" (the client or the server went first).
type logLine struct {
	Time          string          `json:"time"`
	Downstream    string          `json:"downstream"`
	Upstream      string          `json:"upstream"`
	Method        string          `json:"method"`
	Name          string          `json:"name,omitempty"`
	DurationMs    float64         `json:"durationMs"`
	Outcome       string          `json:"outcome"`
	Code          int64           `json:"code,omitempty"`
	Error         string          `json:"error,omitempty"`
	RequestBytes  int             `json:"requestBytes"`
	ResponseBytes int             `json:"responseBytes"`
	Arguments     json.RawMessage `json:"arguments,omitempty"`
	// ArgumentsLeftOut is the size of arguments that would have made the
	// line longer than MaxLogLine, or that could not be redacted.
	ArgumentsLeftOut int `json:"argumentsLeftOut,omitempty"`
}

// pendingCall is a request on its way: what its line will say.
type pendingCall struct {
	start        time.Time
	method, name string
	size         int
	args         json.RawMessage
}

// write appends the line for c, ended now with outcome.
func (l *CallLog) write(downstream, upstream string, c *pendingCall, outcome string, code int64, msg string, size int) {
	if l == nil {
		return
	}
	ln := logLine{Time: c.start.UTC().Format(time.RFC3339Nano), Downstream: l.field(downstream), Upstream: l.field(upstream),
		Method: l.field(c.method), Name: l.field(c.name), DurationMs: float64(time.Since(c.start).Microseconds()) / 1000,
		Outcome: outcome, Code: code, Error: l.field(msg), RequestBytes: c.size, ResponseBytes: size}
	if l.arguments && len(c.args) > 0 {
		args := []byte(l.secrets.String(string(c.args)))
		if len(args) > MaxLogLine/2 || !json.Valid(args) {
			ln.ArgumentsLeftOut = len(c.args)
		} else {
			ln.Arguments = args
		}
	}
	data := ln.encode()
	if len(data) > MaxLogLine && ln.Arguments != nil {
		ln.Arguments, ln.ArgumentsLeftOut = nil, len(c.args)
		data = ln.encode()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// One write per line: O_APPEND places it whole at the end.
	l.f.Write(data)
}

// encode is ln as one line, its newline included. "<" stays "<": the
// file is read by people and jq, not put into a page.
func (ln *logLine) encode() []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(ln)
	return b.Bytes()
}

// field is s for a line: redacted, then bounded (a secret cut first
// could pass unrecognized).
func (l *CallLog) field(s string) string { return cut(l.secrets.String(s)) }

// cut is s bounded to maxLogField bytes, ending in "…" when it was cut,
// never inside a character.
func cut(s string) string {
	if len(s) <= maxLogField {
		return s
	}
	return strings.ToValidUTF8(s[:maxLogField], "") + "…"
}
