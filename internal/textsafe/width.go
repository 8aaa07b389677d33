package textsafe

import (
	"strings"

	"github.com/rivo/uniseg"
)

// Width is how many terminal columns s takes: two for a wide (CJK)
// character or an emoji, none for a combining mark. Counting runes gets
// all three wrong, and a table or a live line measured that way wraps or
// misaligns.
func Width(s string) int {
	return uniseg.StringWidth(s)
}

// Clip cuts s to at most n columns, ending in "…" when it cut. It never
// splits a character (a grapheme cluster: an accented letter, an emoji
// sequence), so the result may be a column short of n.
func Clip(s string, n int) string {
	if Width(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	var b strings.Builder
	width, state := 0, -1
	for rest := s; rest != ""; {
		var c string
		var w int
		c, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if width+w > n-1 { // keep a column for the ellipsis
			break
		}
		b.WriteString(c)
		width += w
	}
	return strings.TrimRight(b.String(), " ") + "…"
}
