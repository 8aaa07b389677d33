package testserver

import (
	"bytes"
	"io"
	"net/http"
	"strings"
)

// The event-stream faults: an answer with Content-Type text/event-stream
// whose lines never end an event, as fast as the client reads. With --sse
// the transport's GET is answered so (no endpoint event ever comes);
// otherwise the POST of a tool call is.
const (
	faultSSEFields   = "sse-fields"    // event:, id:, retry: and comment lines, never a blank line
	faultSSEComments = "sse-comments"  // comment lines only
	faultSSELongLine = "sse-long-line" // one "id:" line that never ends
)

func endlessFault(fault string) bool {
	return fault == faultSSEFields || fault == faultSSEComments || fault == faultSSELongLine
}

// endlessChunk is what an event-stream fault writes, over and over.
func endlessChunk(fault string) []byte {
	var unit string
	switch fault {
	case faultSSEFields:
		unit = "event: message\nid: 42\nretry: 1000\n: still here\nevent: endpoint\nid: 43\n"
	case faultSSEComments:
		unit = ": still here\n"
	default:
		unit = "x"
	}
	return bytes.Repeat([]byte(unit), 64<<10/len(unit))
}

// answerEndless answers r with an endless event stream when the fault
// takes it; it reports whether it did.
func (h *faultHandler) answerEndless(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case r.Method == http.MethodGet && h.opts.sse:
	case r.Method == http.MethodPost && !h.opts.sse:
		m, ok := peekMessage(w, r)
		if !ok {
			return true
		}
		if !isCall(m, "tools/call") {
			return false
		}
	default:
		return false
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	if h.opts.fault == faultSSELongLine {
		io.WriteString(w, "id: ")
	}
	chunk := endlessChunk(h.opts.fault)
	for {
		select {
		case <-r.Context().Done():
			return true
		case <-h.stop:
			return true
		default:
		}
		if _, err := w.Write(chunk); err != nil {
			return true
		}
	}
}

// stderrFill is what --stderr-bytes writes, line by line.
var stderrFill = strings.Repeat("testserver: start-up chatter ", 3) + "\n"

// writeChatter writes n bytes of start-up chatter to w, a line at a time.
func writeChatter(w io.Writer, n int) {
	for n > 0 {
		line := stderrFill[:min(n, len(stderrFill))]
		io.WriteString(w, line)
		n -= len(line)
	}
}
