package transport

import (
	"bytes"
	"io"
	"sync"
)

// NewGate is a Gate in front of out (nil: what passes is dropped).
func NewGate(out io.Writer) *Gate { return &Gate{out: out} }

// GateHold is how much of a probing server's stderr a Gate holds from its
// start; GateTail how much of its end past that. What comes between them
// before the outcome is known is dropped, and counted.
const (
	GateHold = 1 << 20
	GateTail = 64 << 10
)

// Gate holds a probing server's stderr until the probe's outcome is
// known, then passes it on (Release) or drops it (Discard). Past GateHold
// it keeps the last GateTail bytes: a server's latest lines (why it is
// slow, what it last did) are the ones a reader looks for.
type Gate struct {
	mu      sync.Mutex
	out     io.Writer
	buf     []byte
	tail    []byte // the last bytes past buf, at most 2*GateTail
	dropped int64  // bytes past GateHold, tail included until Release
	decided bool
	drop    bool
	noise   bool // what is held is dropped, even on Release
}

func (g *Gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case !g.decided:
		keep := min(len(p), GateHold-len(g.buf))
		g.buf = append(g.buf, p[:keep]...)
		if rest := p[keep:]; len(rest) > 0 {
			g.dropped += int64(len(rest))
			g.keepTail(rest)
		}
		return len(p), nil
	case g.drop || g.out == nil:
		return len(p), nil
	}
	return g.out.Write(p)
}

// keepTail appends p to the tail, which keeps its last GateTail bytes
// (moved down once it holds twice that, so a flood costs no more).
func (g *Gate) keepTail(p []byte) {
	if len(p) >= GateTail {
		g.tail = append(g.tail[:0], p[len(p)-GateTail:]...)
		return
	}
	g.tail = append(g.tail, p...)
	if len(g.tail) > 2*GateTail {
		g.tail = append(g.tail[:0], g.tail[len(g.tail)-GateTail:]...)
	}
}

// Release passes on what was held: its start, then (when more came) note
// with the bytes dropped and the lines kept after them, then those last
// whole lines; and what comes after.
// note, which must say the cut (one nobody mentions looks like a server
// that said nothing more), may be nil.
func (g *Gate) Release(note func(dropped int64, lines int)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.decided {
		return
	}
	g.decided = true
	if g.noise {
		g.buf, g.tail, g.dropped = nil, nil, 0
	}
	tail := g.tail
	if len(tail) > GateTail {
		tail = tail[len(tail)-GateTail:]
	}
	// The tail begins at a line's start: the part of a line before it
	// is dropped with the rest (all of it, when one line fills it).
	if int64(len(tail)) < g.dropped {
		if i := bytes.IndexByte(tail, '\n'); i >= 0 {
			tail = tail[i+1:]
		} else {
			tail = nil
		}
	}
	dropped := g.dropped - int64(len(tail))
	if g.out != nil && len(g.buf) > 0 {
		if dropped > 0 && g.buf[len(g.buf)-1] != '\n' {
			g.buf = append(g.buf, '\n') // the cut line ends where it was cut
		}
		g.out.Write(g.buf)
	}
	if dropped > 0 && note != nil {
		note(dropped, bytes.Count(tail, []byte{'\n'}))
	}
	if g.out != nil && len(tail) > 0 {
		g.out.Write(tail)
	}
	g.buf, g.tail = nil, nil
}

// Noise says that what the gate holds so far is the probe's noise, not
// start-up news: the server refused the probe (a Python server writes a
// 94-line validation warning first) and the fallback to initialize will
// answer for it. Release drops what it held then, and passes on only what
// comes after. The server wrote its warning before its answer, but on
// another pipe: the fallback's round trip, before Release, is what gives
// the warning the time to arrive here.
func (g *Gate) Noise() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.noise = true
}

// Discard drops what was held, and what comes after.
func (g *Gate) Discard() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.decided {
		g.decided, g.drop = true, true
		g.buf, g.tail = nil, nil
	}
}
