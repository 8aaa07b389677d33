package schemadiff

import (
	"strings"

	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Lines is the changes as text, one line each (Text), stripped of control
// characters: the names in them are the server's.
func Lines(changes []Change) []byte {
	var b strings.Builder
	for _, c := range changes {
		b.WriteString(textsafe.StripControl(c.Text()) + "\n")
	}
	return []byte(b.String())
}

// Fails says whether changes fail a comparison: one breaking change does,
// and with strict any change.
func Fails(changes []Change, strict bool) bool {
	for _, c := range changes {
		if c.Kind == Breaking || strict {
			return true
		}
	}
	return false
}
