package config

import (
	"bytes"
	"fmt"

	"github.com/mcpc-dev/mcpc/internal/schemamsg"
)

// A config file is a few levels deep and its keys are short; one that is
// not was made to exhaust the decoder (a TOML decoder builds a table for
// each part of a dotted key a.a.a…, gigabytes for a 2 MB file). The
// bounds are checked by one pass over the bytes before any decoding, and
// are far past anything an app writes.
const (
	MaxNesting  = 64   // levels of arrays, objects, tables and dotted-key parts
	MaxKeyBytes = 1024 // bytes of one key, dotted parts included
)

// checkShape reports where data (JSON with comments, or TOML) nests deeper
// than MaxNesting or has a key longer than MaxKeyBytes, as a located
// config error; nil when it does not. It reads strings and comments as
// their syntax has them, so brackets in them do not count, and it is no
// parser: what it lets through the decoder still judges.
func checkShape(path string, data []byte, isTOML bool) error {
	return scanShape(&shapeScan{path: path, data: data, isTOML: isTOML, maxKey: MaxKeyBytes})
}

// checkImportShape is checkShape for another app's file, where a long
// key that names a server (a member of "mcpServers", at depth 2, or 4
// under Claude Code's projects; a Codex [mcp_servers.NAME] header) is let
// through: that entry is skipped by its name (importName), not the whole
// file with it. Every other key, and the nesting, are bounded as
// checkShape bounds them.
func checkImportShape(path string, data []byte, isTOML bool) error {
	return scanShape(&shapeScan{path: path, data: data, isTOML: isTOML, maxKey: MaxKeyBytes, names: true})
}

func scanShape(s *shapeScan) error {
	data := s.data
	s.lineStart, s.valueAt = true, -1
	for i := 0; i < len(data); {
		next, err := s.step(i)
		if err != nil || next < 0 {
			return err
		}
		i = next
	}
	return nil
}

// shapeScan is where checkShape is in the bytes.
type shapeScan struct {
	path   string
	data   []byte
	isTOML bool
	maxKey int  // bytes of one key
	names  bool // a server's name is not bounded (checkImportShape)
	depth  int
	seg    int // TOML: where the current key (or value) began
	dots   int // TOML: the dots in it
	// TOML: the line so far is blank; a table's header is open.
	lineStart, header bool
	valueAt           int // JSON: where the last string began
}

// step reads the byte at i, or the string or comment that opens there,
// and returns where the next one is: -1 for nothing more to check.
func (s *shapeScan) step(i int) (int, error) {
	c := s.data[i]
	first := s.lineStart
	s.lineStart = c == '\n' || s.lineStart && (c == ' ' || c == '\t' || c == '\r')
	if next, skipped := s.skip(i); skipped {
		return next, nil
	}
	sep, err := s.token(i, first)
	if err != nil || !sep {
		return i + 1, err
	}
	// A separator: a TOML key (or a table's name) ends at it.
	if s.isTOML && (c == '=' || c == ']' && s.header) && s.longKey(s.seg, i) {
		return 0, s.fail(s.seg, "a key of more than %d bytes", MaxKeyBytes)
	}
	if c == ']' && s.depth == 0 {
		s.header = false
	}
	s.seg, s.dots, s.valueAt = i+1, 0, -1
	return i + 1, nil
}

// skip passes over a string or a comment that opens at i, as its syntax
// has it, so that brackets in it do not count: where the next byte to
// read is (-1 after a comment that does not end), and whether one did.
func (s *shapeScan) skip(i int) (int, bool) {
	data, c := s.data, s.data[i]
	switch {
	case c == '"' || s.isTOML && c == '\'':
		s.valueAt = i
		return stringEnd(data, i, s.isTOML), true
	case s.isTOML && c == '#', !s.isTOML && c == '/' && i+1 < len(data) && data[i+1] == '/':
		for i < len(data) && data[i] != '\n' {
			i++
		}
		s.seg, s.dots, s.lineStart = i+1, 0, true
		return i + 1, true
	case !s.isTOML && c == '/' && i+1 < len(data) && data[i+1] == '*':
		end := bytes.Index(data[i+2:], []byte("*/"))
		if end < 0 {
			return -1, true
		}
		return i + end + 4, true
	}
	return i, false
}

// token counts the depth and the key lengths at the byte at i (first:
// the first on its line but blanks), and says whether it separates keys
// or values.
func (s *shapeScan) token(i int, first bool) (bool, error) {
	c := s.data[i]
	switch {
	case c == '{' || c == '[':
		s.header = s.header || s.isTOML && c == '[' && s.depth == 0 && first
		if s.depth++; s.depth > MaxNesting {
			return false, s.fail(i, "nested more than %d levels deep", MaxNesting)
		}
	case c == '}' || c == ']':
		s.depth--
	case s.isTOML && c == '.':
		if s.dots++; s.depth+s.dots >= MaxNesting {
			return false, s.fail(i, "a dotted key of more than %d parts", MaxNesting)
		}
		return false, nil
	case !s.isTOML && c == ':':
		if s.valueAt >= 0 && s.longKey(s.valueAt, i) {
			return false, s.fail(s.valueAt, "a key of more than %d bytes", MaxKeyBytes)
		}
	case c == ' ' || c == '\t' || c == '\r':
		return false, nil
	case s.isTOML && c != '=' && c != ',' && c != '\n':
		return false, nil // a bare key or a value goes on
	}
	return true, nil
}

// longKey says whether the key from start to end passes the bound.
func (s *shapeScan) longKey(start, end int) bool {
	if s.names && (s.isTOML && s.header && s.dots == 1 || !s.isTOML && (s.depth == 2 || s.depth == 4)) {
		return false
	}
	return end-start > s.maxKey
}

// fail is the located error for a shape no config file needs.
func (s *shapeScan) fail(at int, what string, n int) error {
	return configErr(s.path, s.data, int64(at), "%s; no config file needs that: fix or remove the file", fmt.Sprintf(what, n))
}

// stringEnd is the offset just past the string that opens at data[i]: a
// JSON string, or a TOML basic or literal one, multi-line or not (a
// literal has no escapes); len(data) when it does not end.
func stringEnd(data []byte, i int, isTOML bool) int {
	if !isTOML {
		return schemamsg.StringEnd(data, i)
	}
	q := data[i]
	if bytes.HasPrefix(data[i:], []byte{q, q, q}) {
		for j := i + 3; j < len(data); j++ {
			if data[j] == '\\' && q == '"' {
				j++
			} else if bytes.HasPrefix(data[j:], []byte{q, q, q}) {
				// Up to two quotes may end the content itself.
				for j+3 < len(data) && data[j+3] == q {
					j++
				}
				return j + 3
			}
		}
		return len(data)
	}
	for j := i + 1; j < len(data); j++ {
		switch {
		case data[j] == '\\' && q == '"':
			j++
		case data[j] == q:
			return j + 1
		case data[j] == '\n':
			return j // a TOML one-line string ends at the line, closed or not
		}
	}
	return len(data)
}
