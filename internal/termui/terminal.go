package termui

import (
	"os"

	"golang.org/x/term"
)

// IsTerminal says whether v (a reader or writer) is a terminal.
func IsTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
