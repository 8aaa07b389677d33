package client

import (
	"errors"
	"fmt"
)

// Kind classifies a failure by what the user has to do about it; the commands
// package maps each Kind to one documented exit code.
type Kind int

const (
	KindUsage      Kind = iota + 1 // bad input on the command line
	KindConfig                     // unknown server, invalid or untrusted config
	KindAuth                       // authentication required or failed
	KindConnection                 // server did not start, crashed, broke the protocol
	KindTimeout                    // a deadline passed
	KindRejected                   // the server answered with a JSON-RPC error
)

// Error is a failure with a message for the user and an optional hint saying
// what to do next. Msg is complete on its own; Err is kept for errors.Is/As.
type Error struct {
	Kind Kind
	Msg  string
	Hint string
	Err  error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

func newErr(k Kind, hint string, format string, args ...any) *Error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...), Hint: hint}
}

func wrapErr(k Kind, err error, hint string, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if err != nil {
		msg += ": " + err.Error()
	}
	return &Error{Kind: k, Msg: msg, Hint: hint, Err: err}
}

// KindOf reports the Kind of the first *Error in err's chain, or 0.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}
