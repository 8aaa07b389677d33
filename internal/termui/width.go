package termui

// golang.org/x/term is the Go team's isatty; none of the chosen libraries
// offers one, and the output mode depends on it.

import (
	"os"

	"golang.org/x/term"
)

// Width is f's width in columns when f is a terminal, else 0 (and not a
// terminal: nothing is fitted to a width then).
func Width(f *os.File) (tty bool, width int) {
	if !term.IsTerminal(int(f.Fd())) {
		return false, 0
	}
	width, _, _ = term.GetSize(int(f.Fd()))
	return true, width
}
