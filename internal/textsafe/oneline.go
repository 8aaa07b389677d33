package textsafe

import "strings"

// OneLine makes s fit on one line of its own, as a table cell or a quoted
// name: controls stripped, all whitespace runs (including newlines and tabs,
// which would break a layout or start a line a server chose) made one space.
func OneLine(s string) string {
	return strings.Join(strings.Fields(StripControl(s)), " ")
}

// Shown are the changes text from outside goes through before mcpc shows
// it on stderr: OneLine for messages and notes, StripControl for trace
// lines. The redaction set registers each secret in these forms too, or a
// secret with a tab, a run of spaces or an escape in it would pass the
// redacting writer changed, and unrecognized.
func Shown() []func(string) string { return []func(string) string{OneLine, StripControl} }
