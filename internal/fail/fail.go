// Package fail is mcpc's one error model: every failure a user can hit is an
// *Error made where it happens, carrying a stable machine-readable code (which
// fixes the exit status), a complete message and an optional hint. Commands
// print it in one place; nothing downstream rewrites it or matches its text.
package fail

import (
	"errors"
	"fmt"
)

// Code names a class of failure. The strings appear in the --json error
// object and are a documented, stable interface: never rename one.
type Code string

// The stable list, documented by `mcpc help exit-codes`.
const (
	ToolError      Code = "tool_error"      // the tool ran and reported isError
	Usage          Code = "usage"           // bad flags, arguments or --args
	Config         Code = "config"          // invalid config, unknown server
	Untrusted      Code = "untrusted"       // a project file that is not trusted
	AuthRequired   Code = "auth_required"   // credentials missing
	AuthFailed     Code = "auth_failed"     // credentials sent and refused
	AuthDenied     Code = "auth_denied"     // SEP-2643: denied on authorization grounds
	Connection     Code = "connection"      // cannot start or reach the server
	ServerExited   Code = "server_exited"   // a stdio server died
	Protocol       Code = "protocol"        // not MCP, wrong era
	TooLarge       Code = "too_large"       // a message over --max-message or nested too deep
	HTTPStatus     Code = "http_status"     // an HTTP error status that is not auth
	Redirect       Code = "redirect"        // a redirect mcpc refused to follow
	RateLimited    Code = "rate_limited"    // -32023 (SEP-3304): the server asked to wait
	Timeout        Code = "timeout"         // --timeout or a request bound passed
	ConnectTimeout Code = "connect_timeout" // --connect-timeout passed
	Rejected       Code = "rejected"        // a JSON-RPC error from the server
	TaskFailed     Code = "task_failed"     // a task ended in status failed
	TaskGone       Code = "task_gone"       // the server cancelled or lost a task
	Drift          Code = "drift"           // mcpc diff found a breaking change; card check, a difference
	Unmatched      Code = "unmatched"       // mcpc replay --strict answered a request with no recorded answer
	Interrupted    Code = "interrupted"     // Ctrl-C or SIGTERM
	Internal       Code = "internal"        // a failure mcpc did not classify: a bug
)

// Exit statuses, documented in the README, the man page and `mcpc help
// exit-codes`.
const (
	ExitOK          = 0
	ExitToolError   = 1
	ExitUsage       = 2
	ExitConfig      = 3
	ExitAuth        = 4
	ExitConnection  = 5
	ExitTimeout     = 6
	ExitRejected    = 7
	ExitInterrupted = 130
)

// Codes lists every code with its exit status and meaning, in the order
// the help topic shows them.
var Codes = []struct {
	Code    Code
	Exit    int
	Meaning string
}{
	{ToolError, ExitToolError, "the tool ran and reported an error (isError: true)"},
	{Usage, ExitUsage, "bad flags, arguments, --args JSON or unknown command"},
	{Config, ExitConfig, "invalid config file or unknown server"},
	{Untrusted, ExitConfig, "the server comes from a project file that is not trusted"},
	{AuthRequired, ExitAuth, "the server needs credentials that were not given"},
	{AuthFailed, ExitAuth, "the server refused the credentials"},
	{AuthDenied, ExitAuth, "the server denied the call on authorization grounds (SEP-2643's envelope), its result still printed"},
	{Connection, ExitConnection, "the server could not be started or reached"},
	{ServerExited, ExitConnection, "the stdio server exited"},
	{Protocol, ExitConnection, "the server broke the protocol or speaks another revision"},
	{TooLarge, ExitConnection, "the server sent a message over --max-message or nested too deeply"},
	{HTTPStatus, ExitConnection, "the server answered with an HTTP error status"},
	{Redirect, ExitConnection, "the server redirected to another origin or to plain http"},
	{RateLimited, ExitConnection, "the server is rate limiting (JSON-RPC error -32023, SEP-3304): the wait it asked for was too long to honour, or a retry was refused again"},
	{Timeout, ExitTimeout, "the invocation or a request ran out of time"},
	{ConnectTimeout, ExitTimeout, "start-up and handshake ran out of time"},
	{Rejected, ExitRejected, "the server rejected the request (JSON-RPC error)"},
	{TaskFailed, ExitToolError, "a task ended in status failed"},
	{Drift, ExitToolError, "mcpc diff found a breaking change (with --strict, any change), or mcpc card check a difference"},
	{Unmatched, ExitToolError, "mcpc replay --strict answered a request the recording had no answer for"},
	{TaskGone, ExitRejected, "the server cancelled a task, or no longer knows it (expired ttl, unknown id)"},
	{Interrupted, ExitInterrupted, "interrupted (Ctrl-C or SIGTERM)"},
	{Internal, ExitConnection, "an unexpected failure inside mcpc (please report it)"},
}

// Exit is the exit status for c.
func (c Code) Exit() int {
	for _, e := range Codes {
		if e.Code == c {
			return e.Exit
		}
	}
	return ExitConnection
}

// Error is a failure with a message that is complete on its own and an
// optional hint saying what to do next. Err is kept for errors.Is/As only.
type Error struct {
	Code Code
	Msg  string
	Hint string
	Err  error
	// Fields are more members of the --json error object, each a stable
	// interface like Code (retryAfterMs); nil for most failures.
	Fields map[string]any
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// New makes an *Error with a formatted message.
func New(code Code, hint, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Hint: hint}
}

// Wrap makes an *Error whose message ends with err's text.
func Wrap(code Code, err error, hint, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if err != nil {
		msg += ": " + err.Error()
	}
	return &Error{Code: code, Msg: msg, Hint: hint, Err: err}
}

// As returns the first *Error in err's chain, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// CodeOf is the code of the first *Error in err's chain, or "" when there
// is none.
func CodeOf(err error) Code {
	if e := As(err); e != nil {
		return e.Code
	}
	return ""
}
