package format

import (
	"strings"

	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// MatchLines lays out mcpc grep's matches as text, one per row of cells
// (server, kind, name, description): aligned columns, the description
// cut to its first line, each line cut to width (0: never cut). Unlike
// table it has no header and narrows no column: the description, last,
// is what a narrow terminal loses.
func MatchLines(rows [][4]string, width int) string {
	cells := make([][4]string, len(rows))
	var w [3]int
	for i, r := range rows {
		desc, _, _ := strings.Cut(strings.TrimSpace(textsafe.StripControl(r[3])), "\n")
		cells[i] = [4]string{textsafe.OneLine(r[0]), r[1], textsafe.OneLine(r[2]), textsafe.OneLine(desc)}
		for c := range w {
			w[c] = max(w[c], textsafe.Width(cells[i][c]))
		}
	}
	var b strings.Builder
	for _, r := range cells {
		var line strings.Builder
		for c := range w {
			line.WriteString(r[c])
			line.WriteString(strings.Repeat(" ", w[c]-textsafe.Width(r[c])+tableGap))
		}
		line.WriteString(r[3])
		s := strings.TrimRight(line.String(), " ")
		if width > 0 {
			s = textsafe.Clip(s, width)
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	return b.String()
}
