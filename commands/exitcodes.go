package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/format"
)

// Exit codes; the table in exitCodesHelp and the man page document them.
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

const exitCodesHelp = `mcpc exit codes

   0  success
   1  the tool ran and reported an error (isError: true); the result is still printed
   2  usage error: bad flags, bad --args JSON, arguments that do not match the
      tool's inputSchema, unknown subcommand
   3  configuration error: unknown server, invalid or untrusted config file
   4  authentication required or failed
   5  connection, transport or protocol failure: the server did not start,
      crashed, wrote something that is not JSON-RPC, or speaks another protocol
   6  timeout (--timeout, --connect-timeout)
   7  the server rejected the request (JSON-RPC error: unknown tool, invalid params)
 130  interrupted (Ctrl-C or SIGTERM)

With --json, a failure also prints one JSON object on stderr:
  {"error":{"code":"auth_required","message":"…","hint":"…","exit":4}}
`

// usageError is bad input on the command line (exit 2).
type usageError struct{ msg, hint string }

func (e *usageError) Error() string { return e.msg }

func usagef(hint, format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), hint: hint}
}

// toolError means the tool reported isError: the result was printed; the
// exit code says so and nothing more is printed.
type toolError struct{}

func (toolError) Error() string { return "the tool reported an error" }

// errInterrupted is returned when a signal cancelled the invocation.
var errInterrupted = errors.New("interrupted")

// classify maps an error to its exit code and the machine-readable code used
// in the JSON error object.
func classify(err error) (int, string) {
	var ue *usageError
	var te toolError
	var se *client.SchemaError
	switch {
	case err == nil:
		return ExitOK, ""
	case errors.As(err, &te):
		return ExitToolError, "tool_error"
	case errors.Is(err, errInterrupted):
		return ExitInterrupted, "interrupted"
	case errors.As(err, &ue), errors.As(err, &se):
		return ExitUsage, "usage"
	case errors.Is(err, context.DeadlineExceeded):
		return ExitTimeout, "timeout"
	}
	switch client.KindOf(err) {
	case client.KindUsage:
		return ExitUsage, "usage"
	case client.KindConfig:
		return ExitConfig, "config"
	case client.KindAuth:
		return ExitAuth, "auth_required"
	case client.KindConnection:
		return ExitConnection, "connection"
	case client.KindTimeout:
		return ExitTimeout, "timeout"
	case client.KindRejected:
		return ExitRejected, "rejected"
	}
	return ExitConnection, "connection"
}

func hintOf(err error) string {
	var ue *usageError
	var ce *client.Error
	var se *client.SchemaError
	switch {
	case errors.As(err, &ue):
		return ue.hint
	case errors.As(err, &ce):
		return ce.Hint
	case errors.As(err, &se):
		return "fix the arguments, or pass --no-validate to let the server judge them"
	}
	return ""
}

// report prints err in mcpc's fixed style, and as JSON when asked, and
// returns the exit code.
func report(stderr io.Writer, err error, jsonErr bool) int {
	code, name := classify(err)
	if code == ExitToolError || code == ExitOK {
		return code
	}
	msg := err.Error()
	if errors.Is(err, context.DeadlineExceeded) && !strings.Contains(msg, "time") {
		msg = "timed out (--timeout)"
	}
	hint := hintOf(err)
	fmt.Fprintf(stderr, "mcpc: error: %s\n", oneLine(msg))
	if hint != "" {
		fmt.Fprintf(stderr, "mcpc: hint: %s\n", oneLine(hint))
	}
	if jsonErr {
		obj := map[string]any{"error": map[string]any{"code": name, "message": oneLine(msg), "hint": oneLine(hint), "exit": code}}
		b, _ := json.Marshal(obj)
		fmt.Fprintf(stderr, "%s\n", b)
	}
	return code
}

// oneLine strips escape sequences (messages quote server-provided text)
// and folds the message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(format.StripControl(s)), " ")
}
