package transport

import (
	"io"
	"sync"
)

// NewGate is a Gate in front of out (nil: what passes is dropped).
func NewGate(out io.Writer) *Gate { return &Gate{out: out} }

// GateHold is how much of a probing server's stderr a Gate holds; what
// comes past it before the outcome is known is dropped, and counted.
const GateHold = 1 << 20

// Gate holds a probing server's stderr until the probe's outcome is
// known, then passes it on (Release) or drops it (Discard).
type Gate struct {
	mu      sync.Mutex
	out     io.Writer
	buf     []byte
	dropped int64 // bytes past GateHold, not held
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
		g.dropped += int64(len(p) - keep)
		return len(p), nil
	case g.drop || g.out == nil:
		return len(p), nil
	}
	return g.out.Write(p)
}

// Release passes on what was held, and what comes after; it returns how
// many bytes were dropped past GateHold, which the caller must say.
func (g *Gate) Release() (dropped int64) {
	g.decide(false)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.dropped
}

func (g *Gate) Discard() { g.decide(true) }

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

func (g *Gate) decide(drop bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.decided {
		return
	}
	g.decided, g.drop = true, drop
	if g.noise {
		g.buf, g.dropped = nil, 0
	}
	if !drop && g.out != nil && len(g.buf) > 0 {
		if g.dropped > 0 && g.buf[len(g.buf)-1] != '\n' {
			g.buf = append(g.buf, '\n') // the cut line ends where it was cut
		}
		g.out.Write(g.buf)
	}
	g.buf = nil
}
