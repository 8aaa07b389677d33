package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/jsonpos"
	"github.com/mcpc-dev/mcpc/internal/suggest"
)

type located struct {
	srv  *Server
	off  int64            // where the server's value starts
	keys map[string]int64 // where each of its keys starts
}

func parseServers(path string, data []byte) (map[string]located, []string, error) {
	if err := checkShape(path, data, false); err != nil {
		return nil, nil, err
	}
	if err := checkSyntax(data); err != nil {
		return nil, nil, configErr(path, data, syntaxOffset(data, err), "invalid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w := &walker{path: path, data: data, dec: dec}
	return w.top()
}

// checkSyntax reports the first syntax error, including trailing garbage
// after the top-level value, which json.Valid would not locate.
func checkSyntax(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF {
			return &json.SyntaxError{Offset: 0}
		}
		return err
	}
	off := dec.InputOffset()
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
		off++
	}
	if off < int64(len(data)) {
		return &jsonpos.Trailing{Off: off}
	}
	return nil
}

// syntaxOffset is where checkSyntax's error err points in data; one that
// names no place is taken to be at the end.
func syntaxOffset(data []byte, err error) int64 {
	if off, ok := jsonpos.Offset(data, err); ok {
		return off
	}
	return int64(len(data))
}

// walker checks the key structure token by token so an unknown key or a
// wrongly typed value can be reported at its exact line and column.
type walker struct {
	path string
	data []byte
	dec  *json.Decoder // reads data[base:]
	base int64
}

// offset is where the decoder is in data.
func (w *walker) offset() int64 { return w.base + w.dec.InputOffset() }

func (w *walker) errAt(off int64, format string, args ...any) error {
	return configErr(w.path, w.data, off, format, args...)
}

func (w *walker) valueStart() int64 {
	off := w.offset()
	for off < int64(len(w.data)) {
		switch w.data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

func (w *walker) expectDelim(want json.Delim, what string) error {
	off := w.valueStart()
	tok, err := w.dec.Token()
	if err != nil {
		return w.errAt(off, "invalid JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		kind := "an object"
		if want == '[' {
			kind = "an array"
		}
		return w.errAt(off, "%s must be %s", what, kind)
	}
	return nil
}

// key reads the next key and where its opening quote is: past the comma
// and blanks before it, as a value is found, rather than by reading its
// escapes backwards from its end.
func (w *walker) key() (string, int64, error) {
	start := w.valueStart()
	tok, err := w.dec.Token()
	if err != nil {
		return "", 0, w.errAt(w.offset(), "invalid JSON: %v", err)
	}
	k, _ := tok.(string)
	return k, start, nil
}

func (w *walker) skip() error {
	var v json.RawMessage
	return w.dec.Decode(&v)
}

func unknownKey(key, where string, allowed []string) string {
	msg := fmt.Sprintf("unknown field %q in %s", key, where)
	if a := suggest.Closest(key, allowed); a != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", a)
	}
	return msg
}

func (w *walker) top() (map[string]located, []string, error) {
	if err := w.expectDelim('{', "the top level"); err != nil {
		return nil, nil, err
	}
	servers := map[string]located{}
	var names []string
	seen := false
	for w.dec.More() {
		k, off, err := w.key()
		if err != nil {
			return nil, nil, err
		}
		switch k {
		case "mcpServers":
			seen = true
			if err := w.expectDelim('{', `"mcpServers"`); err != nil {
				return nil, nil, err
			}
			for w.dec.More() {
				name, noff, err := w.key()
				if err != nil {
					return nil, nil, err
				}
				if !validName(name) {
					return nil, nil, w.errAt(noff, "invalid server name %q: use letters, digits, '.', '_' and '-' (not starting with '-')", name)
				}
				if _, dup := servers[name]; dup {
					return nil, nil, w.errAt(noff, "server %q is defined twice", name)
				}
				voff := w.valueStart()
				srv, keys, err := w.server(name)
				if err != nil {
					return nil, nil, err
				}
				servers[name] = located{srv, voff, keys}
				names = append(names, name)
			}
			w.dec.Token() // closing }
		case "$schema":
			if err := w.skip(); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, w.errAt(off, "%s", unknownKey(k, "the top level", allowedKeys()[""])+`; servers go under "mcpServers"`)
		}
	}
	if !seen {
		return nil, nil, w.errAt(0, `no "mcpServers" object`)
	}
	return servers, names, nil
}

func (w *walker) server(name string) (*Server, map[string]int64, error) {
	where := fmt.Sprintf("server %q", name)
	start := w.valueStart()
	if err := w.expectDelim('{', where); err != nil {
		return nil, nil, err
	}
	s := &Server{}
	type field struct {
		key string
		off int64
		raw json.RawMessage
	}
	var fields []field
	keys := map[string]int64{}
	for w.dec.More() {
		k, koff, err := w.key()
		if err != nil {
			return nil, nil, err
		}
		keys[k] = koff
		if slices.Contains(hostKeys, k) {
			// Decoding the object below skips it too: Server has no field
			// of that name.
			if err := w.skip(); err != nil {
				return nil, nil, w.errAt(koff, "invalid JSON: %v", err)
			}
			line, col := jsonpos.LineCol(w.data, koff)
			s.ignored = append(s.ignored, fmt.Sprintf("%s:%d:%d: %s: ignoring %q, another MCP host's setting that mcpc does not use", w.path, line, col, where, k))
			continue
		}
		if !slices.Contains(allowedKeys()["server"], k) {
			return nil, nil, w.errAt(koff, "%s", unknownKey(k, where, slices.Concat(allowedKeys()["server"], hostKeys)))
		}
		voff := w.valueStart()
		if k == "auth" {
			a, err := w.auth(where)
			if err != nil {
				return nil, nil, err
			}
			s.Auth = a
			continue
		}
		var raw json.RawMessage
		if err := w.dec.Decode(&raw); err != nil {
			return nil, nil, w.errAt(voff, "invalid JSON: %v", err)
		}
		fields = append(fields, field{k, voff, raw})
	}
	w.dec.Token()
	// The keys are known good: decode the whole object through the struct's
	// tags at once, and only when that fails each field alone, to name the
	// one at fault (a decode per field costs as much as the rest of Load).
	if err := json.Unmarshal(w.data[start:w.offset()], s); err == nil {
		return s, keys, nil
	}
	one := &Server{}
	for _, f := range fields {
		if err := decodeField(one, f.key, f.raw); err != nil {
			return nil, nil, w.errAt(f.off, "%s: field %q: %s", where, f.key, err)
		}
	}
	return nil, nil, w.errAt(start, "%s: cannot decode the server", where)
}

func (w *walker) auth(where string) (*Auth, error) {
	where += ` "auth"`
	start := w.valueStart()
	if err := w.expectDelim('{', where); err != nil {
		return nil, err
	}
	for w.dec.More() {
		k, koff, err := w.key()
		if err != nil {
			return nil, err
		}
		if !slices.Contains(allowedKeys()["auth"], k) {
			return nil, w.errAt(koff, "%s", unknownKey(k, where, allowedKeys()["auth"]))
		}
		if k == "idp" {
			// Its keys are checked too: a misspelt "tokenEndpoint" would
			// otherwise be dropped in silence.
			if err := w.idpKeys(where + ` "idp"`); err != nil {
				return nil, err
			}
			continue
		}
		if err := w.skip(); err != nil {
			return nil, w.errAt(koff, "invalid JSON: %v", err)
		}
	}
	w.dec.Token()
	end := w.offset()
	var a Auth
	if err := json.Unmarshal(w.data[start:end], &a); err != nil {
		return nil, w.errAt(start, "%s: %s", where, typeErrText(err))
	}
	return &a, nil
}

func (w *walker) idpKeys(where string) error {
	if err := w.expectDelim('{', where); err != nil {
		return err
	}
	for w.dec.More() {
		k, koff, err := w.key()
		if err != nil {
			return err
		}
		if !slices.Contains(allowedKeys()["idp"], k) {
			return w.errAt(koff, "%s", unknownKey(k, where, allowedKeys()["idp"]))
		}
		if err := w.skip(); err != nil {
			return w.errAt(koff, "invalid JSON: %v", err)
		}
	}
	_, err := w.dec.Token()
	return err
}

// decodeField decodes one server field through the struct's own JSON tags,
// so the walker and the Server type cannot drift apart.
func decodeField(s *Server, key string, raw json.RawMessage) error {
	one, err := json.Marshal(map[string]json.RawMessage{key: raw})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(one, s); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			te.Field = "" // the caller names the field
		}
		return errors.New(typeErrText(err))
	}
	return nil
}

func typeErrText(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("%s must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return fmt.Sprintf("must be %s, not %s", jsonKind(te.Type.Kind().String()), te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	case "int", "int64", "float64":
		return "a number"
	case "bool":
		return "a boolean"
	}
	return goKind
}
