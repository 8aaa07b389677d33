package commands

import (
	"errors"
	"io"
	"sync"
	"syscall"
)

// stdoutWriter is the one writer of what commands print on stdout, with
// one rule for every command, whether it prints through the formatter or
// writes its own lines: a reader that went away (mcpc … | head, EPIPE) is
// no failure, and what follows is dropped; any other failed write (a full
// disk) is, and Main reports the first one even when the command went on
// without looking. A write after the reader left reports EPIPE to the
// writer, so a loop (--batch) can stop making calls nobody reads.
type stdoutWriter struct {
	w   io.Writer
	mu  sync.Mutex
	err error // the first failed write, sticky
}

func (s *stdoutWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// failed is the write failure the invocation must report: nil when every
// write went through or the reader went away.
func (s *stdoutWriter) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil || errors.Is(s.err, syscall.EPIPE) {
		return nil
	}
	return s.err
}

// readerGone reports whether err is the reader of stdout going away.
func readerGone(err error) bool { return errors.Is(err, syscall.EPIPE) }

// finish applies the rule to what a command returned: an error that is
// only the reader going away is no failure; a failed write the command
// did not report is.
func (s *stdoutWriter) finish(err error) error {
	if err != nil && s.readerLeft(err) {
		err = nil
	}
	if err == nil {
		err = s.failed()
	}
	return err
}

// readerLeft reports whether err is stdout's own reader going away: the
// EPIPE a write to stdout failed with. An EPIPE from elsewhere is the
// command's failure: a session's holder that closed its socket as its
// server died fails a call's write to it with one, and that is exit 5
// naming the session, not a quiet exit 0 with nothing printed.
func (s *stdoutWriter) readerLeft(err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err != nil && readerGone(s.err) && errors.Is(err, s.err)
}
