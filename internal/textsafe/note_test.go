package textsafe

import (
	"strings"
	"testing"
)

// Every note of mcpc's is printed here, so its bytes are pinned once: the
// prefix, escapes stripped, line breaks folded so that a quoted server
// string cannot start a line of its own, and one newline at the end.
func TestNoteBytes(t *testing.T) {
	var b strings.Builder
	Note(&b, "tool %q: %s", "echo", "bad\x1b[31m schema\nsecond line\x07")
	Note(&b, "no changes")
	want := "mcpc: note: tool \"echo\": bad schema second line\n" +
		"mcpc: note: no changes\n"
	if b.String() != want {
		t.Errorf("notes:\n%q\nwant\n%q", b.String(), want)
	}
	Note(nil, "dropped") // no notes writer: nothing to do, and no panic
}

// A warning is printed as a note is, under its own prefix.
func TestWarnBytes(t *testing.T) {
	var b strings.Builder
	Warn(&b, "tool %q: %s", "echo", "bad\x1b[31m value\nsecond line")
	if want := "mcpc: warning: tool \"echo\": bad value second line\n"; b.String() != want {
		t.Errorf("warning:\n%q\nwant\n%q", b.String(), want)
	}
}
