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
