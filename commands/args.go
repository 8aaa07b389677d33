package commands

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// argPair is one key=value (string) or key:=json (typed) word.
type argPair struct {
	key   string
	raw   string
	typed bool
}

// parsePairs reads key=value and key:=json words. It runs before any I/O so
// a typo fails fast with exit 2.
func parsePairs(words []string) ([]argPair, error) {
	var out []argPair
	for _, w := range words {
		i := strings.IndexByte(w, '=')
		if i <= 0 || (i == 1 && w[0] == ':') {
			return nil, usagef("pass arguments as key=value (a string) or key:=JSON (a number, boolean, array or object)",
				"invalid argument %q: expected key=value or key:=json", w)
		}
		p := argPair{key: w[:i], raw: w[i+1:]}
		if strings.HasSuffix(p.key, ":") {
			p.key, p.typed = p.key[:len(p.key)-1], true
			if err := checkJSON(p.raw); err != nil {
				return nil, usagef("quote JSON for the shell, e.g. 'tags:=[\"a\",\"b\"]'; for a plain string use key=value",
					"invalid JSON for argument %q: %v", p.key, err)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

func checkJSON(s string) error {
	var v any
	return decodeJSON([]byte(s), &v)
}

// decodeJSON decodes exactly one JSON value, keeping numbers exact, and
// reports syntax errors with line and column.
func decodeJSON(data []byte, v any) error {
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
		line, col := lineColOf(data, off)
		return fmt.Errorf("line %d, column %d: unexpected data after the JSON value", line, col)
	}
	return nil
}

func locate(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var off int64 = -1
	switch {
	case errors.As(err, &se):
		off = max(se.Offset-1, 0) // Offset is just past the offending byte
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(data))
		err = errors.New("unexpected end of JSON input")
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if off < 0 {
		return errors.New(msg)
	}
	line, col := lineColOf(data, off)
	return fmt.Errorf("line %d, column %d: %s", line, col, msg)
}

func lineColOf(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	return bytes.Count(before, []byte("\n")) + 1, len(before) - bytes.LastIndexByte(before, '\n')
}

// readArgsFlag reads --args: inline JSON, @FILE, or - for stdin. The value
// must be a JSON object.
func readArgsFlag(v string, stdin io.Reader, cwd string) (map[string]any, error) {
	return readObjectFlag("--args", `'{"q":"bug"}'`, v, stdin, cwd)
}

// maxObjectFlag bounds what --args and --answers read from a file or
// stdin: /dev/zero or a mistyped path to a disk image must be refused, not
// read until memory runs out.
const maxObjectFlag = 64 << 20

// readObjectFlag reads a flag whose value is a JSON object given inline,
// as @FILE, or as - for stdin. example shows a valid value in hints.
func readObjectFlag(flag, example, v string, stdin io.Reader, cwd string) (map[string]any, error) {
	if v == "" {
		return nil, nil
	}
	hint := flag + " takes a JSON object such as " + example
	data, where := []byte(v), flag
	switch {
	case v == "-":
		b, err := io.ReadAll(io.LimitReader(stdin, maxObjectFlag+1))
		if err != nil {
			return nil, usagef("", "cannot read %s from stdin: %v", flag, err)
		}
		if len(b) > maxObjectFlag {
			return nil, usagef("", "%s from stdin is %v", flag, &fsx.TooLargeError{Limit: maxObjectFlag})
		}
		data, where = b, flag+" from stdin"
	case strings.HasPrefix(v, "@"):
		path := v[1:]
		if !filepath.IsAbs(path) {
			path = filepath.Join(cwd, path)
		}
		b, err := fsx.ReadFile(path, maxObjectFlag)
		if err != nil {
			var nr *fsx.NotRegularError
			h := ""
			if errors.As(err, &nr) {
				// A pipe can still be given: stdin is read as a stream.
				h = "give a regular file, or pass the object on stdin with " + flag + " -"
			}
			return nil, usagef(h, "cannot read %s file: %v", flag, err)
		}
		data, where = b, flag+" file "+v[1:]
	}
	// Decode into any first: the value's kind decides the message, with no
	// need to read the decoder's error text.
	var val any
	if err := decodeJSON(data, &val); err != nil {
		return nil, usagef(hint, "invalid JSON in %s: %v", where, err)
	}
	switch obj := val.(type) {
	case map[string]any:
		return obj, nil
	case nil:
		return nil, usagef(hint, "%s must be a JSON object, not null", where)
	default:
		return nil, usagef(hint, "%s must be a JSON object", where)
	}
}

// mergeArgs lays pairs over base (pairs win). A key=value word stays a
// string unless the tool's schema says the property is a number, integer or
// boolean (and not a string) and the text parses as one: that is what
// someone typing n=5 means.
func mergeArgs(base map[string]any, pairs []argPair, types map[string][]string) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for _, p := range pairs {
		if p.typed {
			var v any
			_ = decodeJSON([]byte(p.raw), &v) // checked in parsePairs
			out[p.key] = v
			continue
		}
		out[p.key] = coerce(p.raw, types[p.key])
	}
	return out
}

func coerce(s string, types []string) any {
	if slices.Contains(types, "string") || len(types) == 0 {
		return s
	}
	for _, t := range types {
		switch t {
		case "integer":
			if _, err := strconv.ParseInt(s, 10, 64); err == nil {
				return json.Number(s)
			}
		case "number":
			if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXpP_") && !math.IsInf(f, 0) && !math.IsNaN(f) {
				return json.Number(s)
			}
		case "boolean":
			if s == "true" || s == "false" {
				return s == "true"
			}
		case "null":
			if s == "null" {
				return nil
			}
		}
	}
	return s
}
