package termui

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IsTerminal says whether v (a reader or writer) is a terminal. A writer
// wrapped on its way there (stderr's redacting writer) is looked through.
func IsTerminal(v any) bool {
	for {
		u, ok := v.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		v = u.Unwrap()
	}
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
