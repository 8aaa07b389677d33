package textsafe

import (
	"fmt"
	"io"
	"strings"
)

// Note writes one "mcpc: note:" line to w. It is the only printer of notes
// (TestNoteHasOnePrinter holds that): every note is then stripped of escapes
// and kept on one line, whoever wrote it, since notes can quote
// server-provided strings (names, MIME types) and go to a terminal. Code
// that writes to no terminal of its own (client and below) hands its notes up
// through a callback (input.Input.Note, tasks.Session.Note) that ends here.
// A failing notes writer is ignored: the result on stdout matters more.
func Note(w io.Writer, format string, args ...any) {
	line(w, "mcpc: note: ", format, args...)
}

// Warn writes one "mcpc: warning:" line to w, as Note writes a note: a
// warning says something is wrong that does not fail the invocation.
func Warn(w io.Writer, format string, args ...any) {
	line(w, "mcpc: warning: ", format, args...)
}

func line(w io.Writer, prefix, format string, args ...any) {
	if w == nil {
		return
	}
	msg := StripControl(fmt.Sprintf(format, args...))
	msg = strings.ReplaceAll(msg, "\n", " ")
	_, _ = io.WriteString(w, prefix+msg+"\n")
}
