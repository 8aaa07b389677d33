package format

import (
	"strings"

	"github.com/mcpc-dev/mcpc/internal/textsafe"
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
	var b strings.Builder
	writeTable(&b, header, width, func(yield func(cells []string)) {
		for _, r := range rows {
			yield(r)
		}
	})
	return b.String()
}

// writeTable writes table's layout of header and the rows each yields.
// each is called twice, the first time for the widths of the columns, and
// a line is written at a time: a caller with many rows need hold neither
// them nor a second copy of the table.
func writeTable(b textOut, header []string, width int, each func(yield func(cells []string))) {
	widths := make([]int, len(header))
	widen(widths, header)
	each(func(cells []string) { widen(widths, cells) })
	if width > 0 {
		fit(widths, width)
	}
	line := appendRow(nil, header, widths)
	b.Write(line)
	each(func(cells []string) {
		line = appendRow(line[:0], cells, widths)
		b.Write(line)
	})
}

// widen makes widths wide enough for row's cells.
func widen(widths []int, row []string) {
	for i, c := range row {
		widths[i] = max(widths[i], textsafe.Width(c))
	}
}

// appendRow appends one line of a table whose columns are widths wide.
func appendRow(b []byte, row []string, widths []int) []byte {
	start := len(b)
	for i, c := range row {
		c = textsafe.Clip(c, widths[i])
		b = append(b, c...)
		if i < len(row)-1 {
			for range widths[i] - textsafe.Width(c) + tableGap {
				b = append(b, ' ')
			}
		}
	}
	end := len(b)
	for end > start && b[end-1] == ' ' {
		end--
	}
	return append(b[:end], '\n')
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
