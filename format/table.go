package format

import (
	"strings"
)

// tableGap is the blank space between two columns.
const tableGap = 2

// minColumn is the narrowest a column is squeezed to when fitting a table
// into the terminal; its header may be cut below that.
const minColumn = 8

// table lays out cells (already single-line and stripped) in aligned
// columns. With width > 0 (a terminal of that many columns) the widest
// columns are narrowed until a row fits and cut cells end in "…"; with
// width 0 (a pipe, a file) nothing is ever cut. The last column is not
// padded, so lines carry no trailing blanks.
func table(header []string, rows [][]string, width int) string {
	widths := make([]int, len(header))
	all := append([][]string{header}, rows...)
	for _, r := range all {
		for i, c := range r {
			widths[i] = max(widths[i], Width(c))
		}
	}
	if width > 0 {
		fit(widths, width)
	}
	var b strings.Builder
	for _, r := range all {
		var line strings.Builder
		for i, c := range r {
			c = Clip(c, widths[i])
			line.WriteString(c)
			if i < len(r)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-Width(c)+tableGap))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// fit narrows the widest column, one column at a time, until the row fits
// width or every column is at minColumn.
func fit(widths []int, width int) {
	total := func() int {
		t := tableGap * (len(widths) - 1)
		for _, w := range widths {
			t += w
		}
		return t
	}
	for total() > width {
		widest := -1
		for i, w := range widths {
			if w > minColumn && (widest < 0 || w > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			return
		}
		widths[widest]--
	}
}
