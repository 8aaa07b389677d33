// This file reads the calls of a --batch file: one tool call a line,
// bounded, every line checked before any call is made.

package toolschema

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// Call is one line of a --batch file.
type Call struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// The bounds of a batch, which is read whole before any call: one line,
// all of it (the size @FILE values have), and the calls in it. Without
// them an endless --batch - grew until the machine ran out of memory.
const (
	MaxCallLine  = 16 << 20
	MaxCallBytes = 64 << 20
	MaxCalls     = 100_000
)

// ReadCalls reads every line of a --batch file (src, relative to cwd; -
// for stdin) before anything is started: a typo on line 40 must not leave
// 39 calls done. One Call a line, blank lines skipped, each checked (no
// unknown field, one JSON value, a tool named). It stops at the first bad
// line, and at the bounds: a line of MaxCallLine, all of MaxCallBytes,
// MaxCalls calls. A read that blocks (a silent pipe) does not outlive ctx:
// it returns ctx's error (wrapped) once ctx ends, though the read itself
// cannot be interrupted.
func ReadCalls(ctx context.Context, src string, stdin io.Reader, cwd string) ([]Call, error) {
	type read struct {
		calls []Call
		err   error
	}
	done := make(chan read, 1)
	go func() {
		calls, err := readCalls(ctx, src, stdin, cwd)
		done <- read{calls, err}
	}()
	select {
	case r := <-done:
		return r.calls, r.err
	case <-ctx.Done():
		name := src
		if src == "-" {
			name = "stdin"
		}
		return nil, fmt.Errorf("reading --batch %s: %w", name, ctx.Err())
	}
}

// readCalls is ReadCalls's reading, which returns at the next line once
// ctx ends.
func readCalls(ctx context.Context, src string, stdin io.Reader, cwd string) ([]Call, error) {
	var r io.Reader = stdin
	name := "stdin"
	if src != "-" {
		path := src
		if !filepath.IsAbs(path) {
			path = filepath.Join(cwd, path)
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, fail.New(fail.Usage, "", "cannot read --batch file: %v", err)
		}
		defer f.Close()
		r, name = f, src
	}
	var calls []Call
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, MaxCallLine)
	total, n := 0, 1
	for ; sc.Scan(); n++ {
		if ctx.Err() != nil {
			return nil, ctx.Err() // the caller may have answered already
		}
		total += len(sc.Bytes()) + 1
		if total > MaxCallBytes {
			return nil, fail.New(fail.Usage, "split the calls into several --batch runs", "--batch %s is larger than %s", name, units.SizeText(MaxCallBytes))
		}
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		dec.UseNumber()
		var c Call
		if err := dec.Decode(&c); err != nil || dec.More() {
			if err == nil {
				err = fmt.Errorf("more than one JSON value")
			}
			return nil, fail.New(fail.Usage, `each line is {"tool": "NAME", "arguments": {...}}`, "%s:%d: %v", name, n, err)
		}
		if c.Tool == "" {
			return nil, fail.New(fail.Usage, `each line is {"tool": "NAME", "arguments": {...}}`, "%s:%d: no \"tool\"", name, n)
		}
		if len(calls) == MaxCalls {
			return nil, fail.New(fail.Usage, "split the calls into several --batch runs", "--batch %s holds more than %d calls", name, MaxCalls)
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fail.New(fail.Usage, "one call per line: no line longer than "+units.SizeText(MaxCallLine),
			"%s:%d: the line is longer than %s", name, n, units.SizeText(MaxCallLine))
	} else if err != nil {
		return nil, fail.New(fail.Usage, "", "reading --batch %s: %v", name, err)
	}
	return calls, nil
}
