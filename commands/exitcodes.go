package commands

import (
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fail/report"
)

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

// The error model's mapping, report and JSON object, under the names the
// command files use.
var (
	asFailure   = fail.From
	errorObject = report.Object
)
