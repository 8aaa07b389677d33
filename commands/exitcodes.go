package commands

import (
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// usagef is bad input on the command line (exit 2).
func usagef(hint, format string, args ...any) error {
	return fail.New(fail.Usage, hint, format, args...)
}

// errInterrupted is the cause of cancelling the invocation on a signal.
var errInterrupted = &fail.Error{Code: fail.Interrupted, Msg: "interrupted"}

// errInterruptedAgain ends an invocation interrupted a second time while
// it was tearing down.
var errInterruptedAgain = &fail.Error{Code: fail.Interrupted, Msg: "interrupted again: stopped without waiting, the server killed"}
