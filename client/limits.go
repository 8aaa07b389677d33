package client

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// DefaultMaxMessage bounds one message from a server: a stdio line, an HTTP
// JSON body, one event of an event stream. Results bigger than the SDK's
// 16 MiB are legitimate (mcpc bounds what it prints, not what it
// receives), so the default is larger, and --max-message raises it.
const DefaultMaxMessage = 64 << 20

// MaxMaxMessage is the largest --max-message mcpc accepts: a message is
// held in memory whole.
const MaxMaxMessage = units.MaxSize

// maxDepth is how deeply a message may nest: Go's JSON decoder, which the
// SDK uses, refuses anything deeper.
const maxDepth = 10000

// messageLimit is the bound on one message from e's server: --max-message,
// else the entry's "maxMessage", else the default.
func messageLimit(e *config.Entry, o ConnectOptions) int64 {
	switch {
	case o.MaxMessage > 0:
		return o.MaxMessage
	case e.Server.MaxMessage > 0:
		return int64(e.Server.MaxMessage)
	}
	return DefaultMaxMessage
}

// errTooLarge and errTooDeep are what the transport's reader reports; the
// session explains them (limitFailure).
var (
	errTooLarge = errors.New("a message from the server is over the size limit")
	errTooDeep  = fmt.Errorf("a message from the server is nested more than %d levels deep", maxDepth)
)

// overLimit records the first message over a limit.
func (w *wire) overLimit(err error) {
	w.mu.Lock()
	if w.limitErr == nil {
		w.limitErr = err
	}
	w.mu.Unlock()
	w.trace("%v: the session ends", err)
}

// limitFailure explains a message over a limit, if one arrived: the
// connection ends there, which the SDK reports as a closed connection.
func (s *Session) limitFailure() *fail.Error {
	s.wire.mu.Lock()
	err := s.wire.limitErr
	s.wire.mu.Unlock()
	switch err {
	case errTooLarge:
		var hint string
		if s.maxMessage >= MaxMaxMessage {
			// Nothing raises it: never suggest a size ParseSize refuses.
			hint = fmt.Sprintf("%s is the largest limit mcpc accepts (a message is held in memory whole)", units.SizeText(MaxMaxMessage))
		} else {
			hint = fmt.Sprintf("raise the limit with --max-message SIZE (e.g. --max-message %s)", units.SizeText(min(2*s.maxMessage, MaxMaxMessage)))
			if s.Entry.File != nil {
				hint += fmt.Sprintf(", or with \"maxMessage\" for %q in %s", s.Entry.Name, s.Entry.File.Path)
			}
		}
		return &fail.Error{Code: fail.TooLarge, Err: err, Hint: hint,
			Msg: fmt.Sprintf("%s sent a message larger than the %s limit", s.Label, units.SizeText(s.maxMessage))}
	case errFlood:
		return &fail.Error{Code: fail.Protocol, Err: err,
			Hint: "the server must read the answers to its requests; report this to its authors",
			Msg:  fmt.Sprintf("%s sent more than %d requests without reading mcpc's answers for %s", s.Label, maxServerRequests, floodGrace)}
	case errTooDeep:
		return &fail.Error{Code: fail.TooLarge, Err: err,
			Hint: fmt.Sprintf("JSON nested deeper than %d levels is refused by the JSON decoder mcpc and its MCP library use; no setting raises it", maxDepth),
			Msg:  fmt.Sprintf("%s sent a message nested more than %d levels deep", s.Label, maxDepth)}
	}
	return nil
}

// tooDeep reports whether the JSON text b nests deeper than maxDepth.
func tooDeep(b []byte) bool {
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > maxDepth {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

// maxServerRequests bounds the server's requests mcpc has read and not yet
// answered: past it mcpc reads nothing more from the server until an
// answer is delivered, so a server that floods requests and never reads
// the answers cannot grow mcpc without bound (the SDK queues what it
// reads). floodGrace is how long mcpc then waits before it gives up.
const (
	maxServerRequests = 64
	floodGrace        = 3 * time.Second
)

var errFlood = fmt.Errorf("the server sent more than %d requests without reading mcpc's answers", maxServerRequests)

// serverRequest counts a request from the server, answered reports an
// answer delivered to it.
func (w *wire) serverRequest() {
	w.mu.Lock()
	w.unanswered++
	w.mu.Unlock()
}

func (w *wire) answered() {
	w.mu.Lock()
	if w.unanswered > 0 {
		w.unanswered--
	}
	if w.room != nil {
		close(w.room)
		w.room = nil
	}
	w.mu.Unlock()
}

// waitRoom returns once fewer than maxServerRequests requests of the
// server's are unanswered, or errFlood after floodGrace without progress.
func (w *wire) waitRoom(done <-chan struct{}) error {
	var deadline <-chan time.Time
	for {
		w.mu.Lock()
		if w.unanswered < maxServerRequests {
			w.mu.Unlock()
			return nil
		}
		if w.room == nil {
			w.room = make(chan struct{})
		}
		room := w.room
		w.mu.Unlock()
		if deadline == nil {
			t := time.NewTimer(floodGrace)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-room:
		case <-done:
			return net.ErrClosed
		case <-deadline:
			w.overLimit(errFlood)
			return errFlood
		}
	}
}
