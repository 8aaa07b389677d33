package config

import (
	"bytes"

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
	depth := 0
	seg, dots := 0, 0 // TOML: where the current key (or value) began, its dots
	// TOML: the line so far is blank; a table's header is open.
	lineStart, header := true, false
	valueAt := -1 // JSON: where the last string began
	for i := 0; i < len(data); i++ {
		c := data[i]
		first := lineStart
		lineStart = c == '\n' || lineStart && (c == ' ' || c == '\t' || c == '\r')
		switch {
		case c == '"' || isTOML && c == '\'':
			end := stringEnd(data, i, isTOML)
			valueAt = i
			i = end - 1
			continue
		case isTOML && c == '#', !isTOML && c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			seg, dots, lineStart = i+1, 0, true
			continue
		case !isTOML && c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return nil
			}
			i += end + 3
			continue
		case c == '{' || c == '[':
			header = header || isTOML && c == '[' && depth == 0 && first
			if depth++; depth > MaxNesting {
				return configErr(path, data, int64(i), "nested more than %d levels deep; no config file needs that: fix or remove the file", MaxNesting)
			}
		case c == '}' || c == ']':
			depth--
		case isTOML && c == '.':
			if dots++; depth+dots >= MaxNesting {
				return configErr(path, data, int64(i), "a dotted key of more than %d parts; no config file needs that: fix or remove the file", MaxNesting)
			}
			continue
		case !isTOML && c == ':':
			if valueAt >= 0 && i-valueAt > MaxKeyBytes {
				return configErr(path, data, int64(valueAt), "a key of more than %d bytes; no config file needs that: fix or remove the file", MaxKeyBytes)
			}
		case c == ' ' || c == '\t' || c == '\r':
			continue
		case isTOML && c != '=' && c != ',' && c != '\n':
			continue // a bare key or a value goes on
		}
		// A separator: a TOML key (or a table's name) ends at it.
		if isTOML && (c == '=' || c == ']' && header) && i-seg > MaxKeyBytes {
			return configErr(path, data, int64(seg), "a key of more than %d bytes; no config file needs that: fix or remove the file", MaxKeyBytes)
		}
		if c == ']' && depth == 0 {
			header = false
		}
		seg, dots, valueAt = i+1, 0, -1
	}
	return nil
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
