package textsafe

import "strings"

// OneLine makes s fit on one line of its own, as a table cell or a quoted
// name: controls stripped, all whitespace runs (including newlines and tabs,
// which would break a layout or start a line a server chose) made one space.
func OneLine(s string) string {
	return strings.Join(strings.Fields(StripControl(s)), " ")
}
