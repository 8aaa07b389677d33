package rawmsg

import (
	"bytes"
	"encoding/json"
)

// IDScanner finds a message's top-level "id" in its bytes as they are
// read, in pieces, without keeping them: a message over the size limit is
// read to its end and dropped, and its id says which request failed. It
// follows strings and nesting only (what it is fed need not be valid
// JSON, nor nest within any bound), so it costs one pass and a few bytes
// of state, wherever the id is: the TypeScript SDK writes it last, after
// the result.
type IDScanner struct {
	depth       int
	in, escaped bool
	key         []byte // the string being read at depth 1, its first bytes
	keyID       bool   // the last string at depth 1 was "id"
	capture     bool   // reading the id's value
	val         []byte
	done        bool
}

// maxIDLen bounds an id's text: a longer one is none of mcpc's.
const maxIDLen = 256

// Write takes the next bytes of the message; it never fails.
func (s *IDScanner) Write(p []byte) (int, error) {
	for _, c := range p {
		if s.done {
			break
		}
		s.take(c)
	}
	return len(p), nil
}

func (s *IDScanner) take(c byte) {
	if s.capture {
		if !s.in && s.depth == 1 && (c == ',' || c == '}') {
			s.done = true
			return
		}
		if len(s.val) >= maxIDLen || !s.in && (c == '{' || c == '[') {
			s.capture, s.val = false, nil // not an id mcpc sent
		} else {
			s.val = append(s.val, c)
		}
	}
	if s.in {
		switch {
		case s.escaped:
			s.escaped = false
		case c == '\\':
			s.escaped = true
		case c == '"':
			s.in = false
			s.keyID = s.depth == 1 && string(s.key) == "id"
			return
		}
		if s.depth == 1 && len(s.key) <= len("id") {
			s.key = append(s.key, c)
		}
		return
	}
	switch c {
	case '"':
		s.in, s.key = true, s.key[:0]
	case '{', '[':
		s.depth++
	case '}', ']':
		s.depth--
	case ':':
		if s.keyID && s.depth == 1 {
			s.capture, s.val = true, s.val[:0]
		}
	case ' ', '\t', '\r', '\n':
		return
	}
	s.keyID = false
}

// ID is the id found, as its JSON text (a string with its quotes, or a
// number); nil when the message had none (a notification) or its id was
// not a string or a number.
func (s *IDScanner) ID() json.RawMessage {
	v := bytes.TrimSpace(s.val)
	if !s.done || len(v) == 0 || v[0] != '"' && v[0] != '-' && (v[0] < '0' || v[0] > '9') || !json.Valid(v) {
		return nil
	}
	return v
}
