package completions

import (
	"strings"

	"github.com/mcpc-dev/mcpc/internal/shellwords"
)

// DefaultWordBreaks is bash's COMP_WORDBREAKS when a script does not say.
const DefaultWordBreaks = " \t\n\"'><=;|&(:"

// Insert is what the completion script of shell puts on the command line
// for the candidate value when cur is the word being typed: one word that
// the shell reads back as value, never as anything it would expand or run
// (a value may come from a server). bash inserts a candidate as written
// and replaces only what follows the word's last character of
// wordBreaks (its COMP_WORDBREAKS), so it gets the rest of the value
// quoted; PowerShell inserts a candidate as written, so it gets the whole
// value quoted; zsh and fish quote what they insert themselves, so they
// get the value as it is.
func Insert(shell, value, cur, wordBreaks string) string {
	switch shell {
	case "bash":
		trim := cur[:strings.LastIndexAny(cur, wordBreaks)+1]
		if !strings.HasPrefix(value, trim) {
			trim = ""
		}
		return shellwords.Quote(value[len(trim):])
	case "pwsh", "powershell":
		return shellwords.QuotePwsh(value)
	}
	return value
}
