package termui

import (
	"bytes"
	"io"
	"sync"

	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// StderrWriter forwards a server's stderr line by line. On our own stderr
// (a terminal, usually) escape sequences are stripped: server output must
// not be able to rewrite the user's screen.
type StderrWriter struct {
	mu     sync.Mutex
	out    io.Writer
	closer io.Closer
	strip  bool
	buf    []byte
}

// NewStderrWriter forwards to out, stripping escape sequences when strip
// is set (out is a terminal); closer, if not nil, is closed with it.
func NewStderrWriter(out io.Writer, closer io.Closer, strip bool) *StderrWriter {
	return &StderrWriter{out: out, closer: closer, strip: strip}
}

func (w *StderrWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.strip {
		return w.out.Write(p)
	}
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.out.Write([]byte(textsafe.StripControl(string(w.buf[:i])) + "\n"))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 64<<10 { // a very long line: pass it on in pieces
		w.out.Write([]byte(textsafe.StripControl(string(w.buf)) + "\n"))
		w.buf = nil
	}
	return len(p), nil
}

// Close flushes a partial last line and closes a file target.
func (w *StderrWriter) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.out.Write([]byte(textsafe.StripControl(string(w.buf)) + "\n"))
		w.buf = nil
	}
	if w.closer != nil {
		w.closer.Close()
	}
}
