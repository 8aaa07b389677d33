package cliflags

import (
	"slices"
	"strings"
	"testing"
)

func TestHelpArgs(t *testing.T) {
	for line, want := range map[string]string{
		"mcpc call srv tool --help": "mcpc call --help",
		"mcpc -h call":              "mcpc call --help",
		"mcpc srv call -h":          "mcpc call --help",
		"mcpc call srv tool":        "mcpc call srv tool",
		"mcpc --query --help":       "mcpc --help",
	} {
		if got := HelpArgs(tree(new(bool)), strings.Fields(line)); !slices.Equal(got, strings.Fields(want)) {
			t.Errorf("HelpArgs(%q) = %q, want %q", line, got, want)
		}
	}
}

func TestSplitDash(t *testing.T) {
	own, dash := SplitDash([]string{"mcpc", "call", "--", "server", "--", "-x"})
	if !slices.Equal(own, []string{"mcpc", "call"}) || !slices.Equal(dash, []string{"server", "--", "-x"}) {
		t.Errorf("SplitDash = %q, %q", own, dash)
	}
	if own, dash := SplitDash([]string{"mcpc", "list"}); len(own) != 2 || dash != nil {
		t.Errorf("no --: %q, %q", own, dash)
	}
	if _, dash := SplitDash([]string{"mcpc", "--"}); dash == nil || len(dash) != 0 {
		t.Errorf("nothing after --: %#v", dash)
	}
}
