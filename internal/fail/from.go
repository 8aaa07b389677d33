package fail

import (
	"context"
	"errors"
)

// Deadline is the invocation running past --timeout, err being what the
// deadline cut short.
func Deadline(err error) *Error {
	return &Error{Code: Timeout, Msg: "timed out: the invocation ran longer than --timeout", Hint: "raise --timeout", Err: err}
}

// From is the one mapping from any error to the error model. Errors made
// by mcpc carry their code; the rest are the invocation's own deadline or
// a bug.
func From(err error) *Error {
	if e := As(err); e != nil {
		if e.Msg != err.Error() {
			// Keep the context a wrapper added ("cannot x: <msg>").
			c := *e
			c.Msg = err.Error()
			return &c
		}
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return Deadline(err)
	}
	return &Error{Code: Internal, Msg: err.Error(), Err: err}
}
