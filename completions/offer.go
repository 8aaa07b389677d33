package completions

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	redaction "github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Write prints the candidates `mcpc __complete` answers with, one a line
// as word, tab, description; each word as the shell's script puts it on
// the line (Insert), the description one short line of plain text. A
// candidate that is not offerable is left out.
func Write(w io.Writer, cs []Candidate, secrets *redaction.Set, shell, cur, wordBreaks string) {
	for _, c := range cs {
		if !offerable(secrets, c.Value) {
			continue
		}
		desc := strings.ReplaceAll(textsafe.StripControl(secrets.String(c.Description)), "`", "")
		desc = strings.Join(strings.Fields(strings.SplitN(desc, "\n", 2)[0]), " ")
		if utf8.RuneCountInString(desc) > 60 {
			desc = string([]rune(desc)[:57]) + "..."
		}
		v := c.Value
		if v != FilesDirective {
			v = Insert(shell, v, cur, wordBreaks)
		}
		if desc == "" {
			fmt.Fprintln(w, v)
		} else {
			fmt.Fprintf(w, "%s\t%s\n", v, desc)
		}
	}
}

// printable reports whether a candidate can be offered at all: the
// scripts read one a line, and a control character (a newline, a tab, an
// escape sequence) or a byte that is not UTF-8 would break the line, or
// reach the terminal in the list of candidates. Such a value, which only
// a server sends, is dropped rather than shown as something it is not.
func printable(v string) bool {
	return !strings.ContainsAny(v, "\n\t") && textsafe.StripControl(v) == v
}

// offerable reports whether a candidate goes on the command line: it is
// printable, and holds none of the secrets the lookup sent (a server
// that echoes its access token as a value must not put it on the line,
// and from there into the shell's history).
func offerable(secrets *redaction.Set, v string) bool {
	return printable(v) && secrets.String(v) == v
}
