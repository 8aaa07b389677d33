package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

func TestLineCol(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\n  x\n}")
	for _, c := range []struct {
		off       int64
		line, col int
	}{
		{-5, 1, 1}, {0, 1, 1}, {1, 1, 2}, {2, 2, 1}, {14, 3, 3}, {99, 4, 2},
	} {
		if line, col := LineCol(data, c.off); line != c.line || col != c.col {
			t.Errorf("LineCol(%d) = %d:%d, want %d:%d", c.off, line, col, c.line, c.col)
		}
	}
}

func TestOffset(t *testing.T) {
	decode := func(s string, v any) error {
		return json.NewDecoder(bytes.NewReader([]byte(s))).Decode(v)
	}
	var anyV any
	var num struct{ N int }
	for _, c := range []struct {
		name string
		in   string
		err  error
		want int64
		ok   bool
	}{
		{"syntax: the offending byte", `{"a": x}`, decode(`{"a": x}`, &anyV), 6, true},
		{"type: the value", `{"N": "s"}`, decode(`{"N": "s"}`, &num), 9, true},
		{"cut: the end", `{"a":`, decode(`{"a":`, &anyV), 5, true},
		{"trailing: its first byte", `{} x`, fmt.Errorf("wrapped: %w", &Trailing{Off: 3}), 3, true},
		{"no place", `{}`, errors.New("other"), -1, false},
	} {
		if off, ok := Offset([]byte(c.in), c.err); off != c.want || ok != c.ok {
			t.Errorf("%s: Offset(%v) = %d, %v; want %d, %v", c.name, c.err, off, ok, c.want, c.ok)
		}
	}
}

// Decode takes exactly one value, keeps numbers exact, and says where the
// text goes wrong without encoding/json's prefix.
func TestDecode(t *testing.T) {
	var v any
	if err := Decode([]byte(`{"n": 12345678901234567890}`), &v); err != nil || v.(map[string]any)["n"] != json.Number("12345678901234567890") {
		t.Fatalf("Decode = %v, %#v", err, v)
	}
	for in, want := range map[string]string{
		"":         "empty input",
		"  \n":     "empty input",
		`{"a":1}x`: "line 1, column 8: unexpected data after the JSON value",
		"{\n":      "line 2, column 1: unexpected end of JSON input",
		"[1,}":     "line 1, column 4: invalid character '}' looking for beginning of value",
	} {
		if err := Decode([]byte(in), &v); err == nil || err.Error() != want {
			t.Errorf("Decode(%q) = %v, want %q", in, err, want)
		}
	}
}
