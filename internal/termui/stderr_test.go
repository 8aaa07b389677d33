package termui

import (
	"strings"
	"testing"
)

// Server stderr reaches ours line by line, escape sequences stripped, and a
// partial last line is not lost.
func TestStderrWriter(t *testing.T) {
	var out strings.Builder
	w := &StderrWriter{out: &out, strip: true}
	for _, chunk := range []string{"start\x1b[31m", "ed\x1b[0m\nsec", "ond\x1b]0;title\x07 line\nunterminated"} {
		if n, err := w.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	if got, want := out.String(), "started\nsecond line\n"; got != want {
		t.Fatalf("before Close: %q, want %q", got, want)
	}
	w.Close()
	if got, want := out.String(), "started\nsecond line\nunterminated\n"; got != want {
		t.Fatalf("after Close: %q, want %q", got, want)
	}

	// To a file, bytes pass unchanged.
	var raw strings.Builder
	f := &StderrWriter{out: &raw}
	f.Write([]byte("a\x1b[31mb"))
	f.Close()
	if raw.String() != "a\x1b[31mb" {
		t.Fatalf("file target got %q", raw.String())
	}
}
