package transport

import (
	"io"
	"sync"
)

// NewGate is a Gate in front of out (nil: what passes is dropped).
func NewGate(out io.Writer) *Gate { return &Gate{out: out} }

// Gate holds a probing server's stderr until the probe's outcome is
// known, then passes it on (Release) or drops it (Discard).
type Gate struct {
	mu      sync.Mutex
	out     io.Writer
	buf     []byte
	decided bool
	drop    bool
}

func (g *Gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case !g.decided:
		if len(g.buf) < 1<<20 {
			g.buf = append(g.buf, p...)
		}
		return len(p), nil
	case g.drop || g.out == nil:
		return len(p), nil
	}
	return g.out.Write(p)
}

func (g *Gate) Release() { g.decide(false) }
func (g *Gate) Discard() { g.decide(true) }

func (g *Gate) decide(drop bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.decided {
		return
	}
	g.decided, g.drop = true, drop
	if !drop && g.out != nil && len(g.buf) > 0 {
		g.out.Write(g.buf)
	}
	g.buf = nil
}
