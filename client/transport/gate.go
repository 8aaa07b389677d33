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
	seen    int64  // bytes written to the gate
	decided bool
	drop    bool
	noise   bool  // the stream's first mark bytes are dropped, even on Release
	mark    int64 // see Noise
}

func (g *Gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	at := g.seen
	g.seen += int64(len(p))
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
	if g.noise && at < g.mark {
		if g.mark-at >= int64(len(p)) {
			return len(p), nil
		}
		g.out.Write(p[g.mark-at:])
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
	g.cutNoise()
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

// Noise says that the stream's first mark bytes are the probe's noise,
// not start-up news: the server refused the probe (a Python server writes
// a 94-line validation warning first) and the fallback to initialize will
// answer for it. The server wrote its warning before its answer, but on
// another pipe: mark is what it had written when its answer came
// (Process.StderrMark), so the warning is dropped however late it gets
// here, before Release or after, and what follows it passes.
func (g *Gate) Noise(mark int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.noise, g.mark = true, mark
}

// cutNoise drops the noise from what is held: from the start, from the
// count of bytes past GateHold and from the tail (called under g.mu).
func (g *Gate) cutNoise() {
	if !g.noise {
		return
	}
	hold := int64(len(g.buf))
	if g.mark <= hold {
		g.buf = g.buf[g.mark:]
		return
	}
	g.buf = nil
	g.dropped = max(g.dropped-(g.mark-hold), 0)
	if cut := g.mark - (g.seen - int64(len(g.tail))); cut > 0 {
		g.tail = g.tail[min(cut, int64(len(g.tail))):]
	}
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
