// Package jsonpos maps a JSON error to where it is in its input: one rule
// for every message that says "line L, column C" of a JSON text, whether
// the text is a config file, an app's file or --args.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Trailing is an error for data after the one JSON value an input holds,
// which encoding/json's Decoder leaves unread rather than reporting.
type Trailing struct{ Off int64 }

func (t *Trailing) Error() string { return "unexpected data after the top-level value" }

// Offset is where in data the error err, met decoding data with
// encoding/json, points: a syntax error at the byte that broke it (the
// error's Offset is just past it), a type error at its value, trailing
// data at its first byte, a cut input at its end. ok is false for an error
// that names no place.
func Offset(data []byte, err error) (off int64, ok bool) {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var tr *Trailing
	switch {
	case errors.As(err, &se):
		return max(se.Offset-1, 0), true
	case errors.As(err, &te):
		return te.Offset, true
	case errors.As(err, &tr):
		return tr.Off, true
	case errors.Is(err, io.ErrUnexpectedEOF):
		return int64(len(data)), true
	}
	return -1, false
}

// LineCol is the line and the column (in bytes, both from 1) of offset off
// in data; an offset outside data is taken as its nearer end.
func LineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	return bytes.Count(before, []byte("\n")) + 1, len(before) - bytes.LastIndexByte(before, '\n')
}

// Decode decodes exactly one JSON value, keeping numbers exact, and
// reports syntax errors with line and column, without encoding/json's
// "json: " prefix (the caller says what was being read).
func Decode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("empty input")
		}
		return locate(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		off := dec.InputOffset()
		line, col := LineCol(data, off)
		return fmt.Errorf("line %d, column %d: unexpected data after the JSON value", line, col)
	}
	return nil
}

func locate(data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of JSON input" // as json.Unmarshal says it
	}
	off, ok := Offset(data, err)
	if !ok {
		return errors.New(msg)
	}
	line, col := LineCol(data, off)
	return fmt.Errorf("line %d, column %d: %s", line, col, msg)
}
