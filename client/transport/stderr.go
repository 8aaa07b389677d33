package transport

import (
	"io"
	"os"
	"sync"
)

// stderrPipe is a stdio server's stderr, read by mcpc itself rather than
// by os/exec, so that Mark can say how much the server has written so far:
// what it took from the pipe plus what waits in it. A server writes its
// stderr and its stdout on two pipes with no common order, so "what it
// wrote before this answer" is known only this way, not by waiting.
type stderrPipe struct {
	f    *os.File
	mu   sync.Mutex // held while bytes move from the pipe to taken
	took int64
	done chan struct{}
}

// newStderrPipe is the read end of a new pipe and the write end to give
// the server (closed by the caller once the server has started).
func newStderrPipe() (*stderrPipe, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	return &stderrPipe{f: r, done: make(chan struct{})}, w, nil
}

// copyTo forwards what the server writes to out until the pipe ends or is
// closed, then closes done.
func (p *stderrPipe) copyTo(out io.Writer) {
	defer close(p.done)
	buf := make([]byte, 32<<10)
	for {
		n, err := p.read(buf)
		if n > 0 {
			out.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// Mark is the number of bytes the server has written to stderr so far.
func (p *stderrPipe) Mark() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.took + p.pending()
}
