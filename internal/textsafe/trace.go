package textsafe

import (
	"fmt"
	"io"
)

// Tracer is where --verbose trace lines go: one "mcpc: trace:" line each
// on w, escape-stripped (they quote server text).
func Tracer(w io.Writer) func(string) {
	return func(line string) {
		fmt.Fprintf(w, "mcpc: trace: %s\n", StripControl(line))
	}
}
