package completions

import (
	"strings"
	"testing"
)

// Insert quotes what bash and PowerShell put on the line as written, from
// bash's last word break on, and leaves the value to zsh and fish, which
// quote what they insert.
func TestInsert(t *testing.T) {
	for _, c := range []struct {
		shell, value, cur, breaks, want string
	}{
		{"bash", "name=$(touch x)", "name=", DefaultWordBreaks, "'$(touch x)'"},
		{"bash", "name=Ada", "name=A", DefaultWordBreaks, "Ada"},
		{"bash", "name=it's", "na", DefaultWordBreaks, `'name=it'\''s'`},
		{"bash", "name=~/x", "name=", " ", "'name=~/x'"},
		{"bash", "test://items/1", "test://it", DefaultWordBreaks, "//items/1"},
		{"bash", "--protocol=auto", "--protocol=", DefaultWordBreaks, "auto"},
		{"bash", "name=", "name=", DefaultWordBreaks, "''"},
		{"bash", "other", "x=", DefaultWordBreaks, "other"}, // not after the word typed: whole
		{"pwsh", "name=$(touch x)", "name=", DefaultWordBreaks, "'name=$(touch x)'"},
		{"pwsh", "name=Ada", "name=", DefaultWordBreaks, "name=Ada"},
		{"zsh", "name=$(touch x)", "name=", DefaultWordBreaks, "name=$(touch x)"},
		{"fish", "name=$(touch x)", "name=", DefaultWordBreaks, "name=$(touch x)"},
		{"", "name=$(touch x)", "name=", DefaultWordBreaks, "name=$(touch x)"},
	} {
		if got := Insert(c.shell, c.value, c.cur, c.breaks); got != c.want {
			t.Errorf("Insert(%q, %q, %q, %q) = %s; want %s", c.shell, c.value, c.cur, c.breaks, got, c.want)
		}
	}
}

// The scripts of the shells that insert a candidate as written ask mcpc
// for words quoted for them (PowerShell is not on the test machines: this
// and TestQuotePwsh are its tests).
func TestScriptsAskForQuotedWords(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": `__complete --shell bash --wordbreaks "$COMP_WORDBREAKS" --`,
		"pwsh": `__complete --shell pwsh --`,
	} {
		s, err := Script(shell)
		if err != nil || !strings.Contains(s, want) {
			t.Errorf("the %s script does not call %q (%v)", shell, want, err)
		}
	}
}
