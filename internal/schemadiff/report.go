package schemadiff

import (
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Line is the change as text, one line (Text) with its newline, stripped
// of control characters: the names in it are the server's.
func Line(c Change) string { return textsafe.StripControl(c.Text()) + "\n" }
