package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/mcpc-dev/mcpc/internal/schemamsg"
)

// DefaultMaxMessage bounds one message from a server: a stdio line, an HTTP
// JSON body, one event of an event stream. Results bigger than the SDK's
// 16 MiB are legitimate (mcpc bounds what it prints, not what it
// receives), so the default is larger, and --max-message raises it.
const DefaultMaxMessage = 64 << 20

// MaxDepth is how deeply a message may nest: Go's JSON decoder, which the
// SDK uses, refuses anything deeper.
const MaxDepth = 10000

// ErrTooLarge and ErrTooDeep are what the transport's reader reports; the
// session explains them (client's limitFailure).
var (
	ErrTooLarge = errors.New("a message from the server is over the size limit")
	ErrTooDeep  = fmt.Errorf("a message from the server is nested more than %d levels deep", MaxDepth)
)

// ErrUnframed is a stdio line over the size limit that a holder's tap
// (Unreadable) read on for UnframedSpan times the limit without finding
// its end: a line that long cannot be told from a stream that lost its
// framing (a server that writes without end), so the connection ends.
var ErrUnframed = fmt.Errorf("a line from the server went on past %d times the size limit without its end", UnframedSpan)

// UnframedSpan is how many times the size limit a holder reads of a line
// over it, looking for its end, before it gives up (ErrUnframed).
const UnframedSpan = 4

// OverLimit records the first message over a limit (see LimitErr). A
// holder's tap (Unreadable) records none over the size or depth limit:
// the request it answered fails, and the connection goes on.
func (t *Tap) OverLimit(err error) {
	if t.rec != nil {
		t.rec.note("a message from the server was refused, not recorded: %v", err)
	}
	if (err == ErrTooLarge || err == ErrTooDeep) && t.dropping() {
		t.trace("%v: dropped", err)
		return
	}
	t.mu.Lock()
	if t.limitErr == nil {
		t.limitErr = err
	}
	t.mu.Unlock()
	t.trace("%v: the session ends", err)
}

// Unreadable hands each message from the server that is framed but
// cannot be read (over the size limit, nested more than MaxDepth) to f,
// with the limit it broke (ErrTooLarge, ErrTooDeep) and its top-level id
// as JSON text (nil: none found), in place of ending the connection: on
// stdio such a line is read to its end and dropped, and the next is
// read. A session's holder keeps its session this way and fails only the
// request the message answered; without it the connection ends at the
// first (LimitErr), as a one-shot's does. A line that is not JSON is no
// such message: stdio's framing is then broken, and the connection ends.
func (t *Tap) Unreadable(f func(err error, id json.RawMessage)) { t.unreadable.Store(&f) }

func (t *Tap) dropping() bool { return t.unreadable.Load() != nil }

func (t *Tap) dropped(err error, id json.RawMessage) {
	t.trace("%v: dropped", err)
	if f := t.unreadable.Load(); f != nil {
		(*f)(err, id)
	}
}

// Bound lowers the size limit on messages from the server to n bytes
// until the returned func is called: for a request whose answer has a
// size known in advance (a skill file listed with its size), so that a
// server sending more is cut there rather than read to the full limit. A
// message over it breaks the limit as one over the full limit would
// (ErrTooLarge), and the session ends. On HTTP it bounds the answers to
// requests sent meanwhile and every event read meanwhile from a stream
// opened before (the HTTP+SSE transport answers on its one stream); on
// stdio every message read meanwhile, so it is for a caller that sends
// nothing else while it waits.
func (t *Tap) Bound(n int64) (restore func()) {
	t.bound.Store(n)
	return func() { t.bound.Store(0) }
}

// limit is max, or the Bound in force when lower.
func (t *Tap) limit(max int64) int64 {
	if b := t.bound.Load(); b > 0 && b < max {
		return b
	}
	return max
}

// tooDeep reports whether the JSON text b nests deeper than MaxDepth.
func tooDeep(b []byte) bool {
	depth := 0
	var text schemamsg.Strings
	for _, c := range b {
		switch {
		case !text.Outside(c):
		case c == '{' || c == '[':
			if depth++; depth > MaxDepth {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

// MaxServerRequests bounds the server's requests mcpc has read and not yet
// answered: past it mcpc reads nothing more from the server until an
// answer is delivered, so a server that floods requests and never reads
// the answers cannot grow mcpc without bound (the SDK queues what it
// reads). FloodGrace is how long mcpc then waits before it gives up.
const (
	MaxServerRequests = 64
	FloodGrace        = 3 * time.Second
)

// ErrFlood is the limit a server that floods requests broke.
var ErrFlood = fmt.Errorf("the server sent more than %d requests without reading mcpc's answers", MaxServerRequests)

// serverRequest counts a request from the server, answered reports an
// answer delivered to it.
func (t *Tap) serverRequest() {
	t.mu.Lock()
	t.unanswered++
	t.mu.Unlock()
}

func (t *Tap) answered() {
	t.mu.Lock()
	if t.unanswered > 0 {
		t.unanswered--
	}
	if t.room != nil {
		close(t.room)
		t.room = nil
	}
	t.mu.Unlock()
}

// waitRoom returns once fewer than MaxServerRequests requests of the
// server's are unanswered, or ErrFlood after FloodGrace without progress.
func (t *Tap) waitRoom(done <-chan struct{}) error {
	var deadline <-chan time.Time
	for {
		t.mu.Lock()
		if t.unanswered < MaxServerRequests {
			t.mu.Unlock()
			return nil
		}
		if t.room == nil {
			t.room = make(chan struct{})
		}
		room := t.room
		t.mu.Unlock()
		if deadline == nil {
			timer := time.NewTimer(FloodGrace)
			defer timer.Stop()
			deadline = timer.C
		}
		select {
		case <-room:
		case <-done:
			return net.ErrClosed
		case <-deadline:
			t.OverLimit(ErrFlood)
			return ErrFlood
		}
	}
}
