package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
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
	msg, hint := textsafe.OneLine(e.Msg), textsafe.OneLine(e.Hint)
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
		"code": e.Code, "message": textsafe.OneLine(e.Msg), "hint": textsafe.OneLine(e.Hint), "exit": e.Code.Exit()}})
	return b
}
