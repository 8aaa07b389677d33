package textsafe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Name is how mcpc prints a name it did not choose (a session's, a
// server's) inside its own text: as it is when it is plain (printable,
// no space, quote or backslash), else quoted as Go's %q quotes it, each
// control, bidirectional override and invisible character escaped. A
// stripped name would read as another (a C1 CSI takes the characters
// after it, an override reverses them); a quoted one reads as what it is
// and changes nothing around it. It is the one printer of such names:
// tables and messages alike.
func Name(s string) string {
	// Invalid UTF-8 is quoted too: a lone byte reads as U+FFFD, which
	// passes as printable, and a raw 0x9b is a C1 CSI to a terminal.
	if s != "" && utf8.ValidString(s) && !strings.ContainsFunc(s, needsQuote) {
		return s
	}
	return strconv.Quote(s)
}

func needsQuote(r rune) bool {
	return r == '"' || r == '\\' || unicode.IsSpace(r) || !strconv.IsPrint(r)
}
