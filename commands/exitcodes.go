package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// exitCodesHelp is the `mcpc help exit-codes` topic, built from the one
// list of codes so the two cannot drift apart.
func exitCodesHelp() string {
	var b strings.Builder
	b.WriteString("mcpc exit codes\n\n")
	for _, st := range fail.Statuses {
		// Wrapped to the width of the other topics, continued under the
		// meaning's first word.
		for i, line := range wrapWords(st.Meaning, 70) {
			if i == 0 {
				fmt.Fprintf(&b, "%4d  %s\n", st.Exit, line)
			} else {
				fmt.Fprintf(&b, "      %s\n", line)
			}
		}
	}
	b.WriteString(`
mcpc list --check exits 0 when every server it checked is ok, else with the
status of the most severe failure, in this order: 5 (unreachable), 6
(timeout), 4 (needs login, auth failed), 7 (rejected), 2, then 3 (a named
server that is untrusted, disabled or unusable; unnamed ones are listed
only). mcpc grep exits 0 with a match, 1 without, 5 when no server could
be searched.

With --json, a failure also prints one JSON object on stderr:
  {"error":{"code":"auth_required","message":"…","hint":"…","exit":4}}

The "code" strings are stable; each belongs to one exit status:

`)
	for _, c := range fail.Codes {
		fmt.Fprintf(&b, "  %-16s %3d  %s\n", c.Code, c.Exit, c.Meaning)
	}
	return b.String()
}

// usagef is bad input on the command line (exit 2).
func usagef(hint, format string, args ...any) error {
	return fail.New(fail.Usage, hint, format, args...)
}

// errToolError means the tool reported isError: the result was printed; the
// exit status says so and nothing more is printed.
var errToolError = &fail.Error{Code: fail.ToolError, Msg: "the tool reported an error"}

// errInterrupted is the cause of cancelling the invocation on a signal.
var errInterrupted = &fail.Error{Code: fail.Interrupted, Msg: "interrupted"}

// errInterruptedAgain ends an invocation interrupted a second time while
// it was tearing down.
var errInterruptedAgain = &fail.Error{Code: fail.Interrupted, Msg: "interrupted again: stopped without waiting, the server killed"}

// asFailure is the one mapping from any error to the error model. Errors
// made by mcpc carry their code; the rest are the invocation's own deadline
// or a bug.
func asFailure(err error) *fail.Error {
	if e := fail.As(err); e != nil {
		if e.Msg != err.Error() {
			// Keep the context a wrapper added ("cannot x: <msg>").
			c := *e
			c.Msg = err.Error()
			return &c
		}
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &fail.Error{Code: fail.Timeout, Msg: "timed out: the invocation ran longer than --timeout", Hint: "raise --timeout", Err: err}
	}
	return &fail.Error{Code: fail.Internal, Msg: err.Error(), Err: err}
}

// report prints err in mcpc's fixed style, and as JSON when asked, and
// returns the exit status.
func report(stderr io.Writer, err error, jsonErr bool) int {
	if err == nil {
		return fail.ExitOK
	}
	e := asFailure(err)
	code := e.Code.Exit()
	if e.Code == fail.ToolError || e.Code == fail.Drift {
		return code // what happened is already printed
	}
	msg, hint := format.OneLine(e.Msg), format.OneLine(e.Hint)
	fmt.Fprintf(stderr, "mcpc: error: %s\n", msg)
	if hint != "" {
		fmt.Fprintf(stderr, "mcpc: hint: %s\n", hint)
	}
	if jsonErr {
		fmt.Fprintf(stderr, "%s\n", errorObject(e))
	}
	return code
}

// errorObject is the JSON form of a failure: the object --json prints on
// stderr, and --batch prints in place of a failed call's result.
func errorObject(e *fail.Error) []byte {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"code": e.Code, "message": format.OneLine(e.Msg), "hint": format.OneLine(e.Hint), "exit": e.Code.Exit()}})
	return b
}

// wrapWords breaks text at spaces into lines of at most width bytes (a
// longer word stands on a line of its own).
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}
