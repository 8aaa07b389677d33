package format

import "testing"

// Text: aligned, the description's first line, escapes stripped; cut to
// the terminal's width.
func TestMatchLines(t *testing.T) {
	rows := [][4]string{{"one", "tool", "a", "first line\nsecond"}, {"three", "resource", "file:///x", "\x1b[31mred"}}
	if got := MatchLines(rows, 0); got != "one    tool      a          first line\nthree  resource  file:///x  red\n" {
		t.Errorf("text %q", got)
	}
	if got := MatchLines(rows, 20); got != "one    tool      a…\nthree  resource  fi…\n" {
		t.Errorf("text cut to 20 columns %q", got)
	}
}
