package commands

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/format"
)

// progressDelay keeps a quick call from flashing a line that is gone
// before it can be read.
const progressDelay = 300 * time.Millisecond

var spinner = []string{"|", "/", "-", "\\"}

// progress shows a call's progress on stderr while it runs. On a terminal
// that understands cursor control it is one live line (spinner, message,
// done/total or percent, elapsed), redrawn in place and cleared before the
// result is printed. Elsewhere, only when asked for (--progress), each
// notification is one "mcpc: progress:" line.
type progress struct {
	w     io.Writer
	live  bool
	color bool
	width int
	now   func() time.Time

	mu      sync.Mutex
	start   time.Time
	last    *mcp.ProgressNotificationParams
	tick    int
	shown   bool
	stopped bool
	paused  int // questions being asked on the terminal: no redraw meanwhile
	done    chan struct{}
}

// startProgress begins showing progress for one request, or returns nil
// when there is nothing to show it on.
func (st *state) startProgress(asked bool) *progress {
	term := st.env.Getenv("TERM")
	live := st.env.StderrTTY && term != "dumb"
	if !live && !asked {
		return nil
	}
	p := &progress{
		w:     st.env.Stderr,
		live:  live,
		color: live && st.env.Getenv("NO_COLOR") == "",
		width: st.env.StderrWidth,
		now:   st.env.Now,
		start: st.env.Now(),
		done:  make(chan struct{}),
	}
	if p.width <= 0 {
		p.width = 80
	}
	if live {
		go p.animate()
	}
	st.progress.Store(p)
	return p
}

// onProgress is the session's handler: it feeds the request being shown.
func (st *state) onProgress(n *mcp.ProgressNotificationParams) {
	if p := st.progress.Load(); p != nil {
		p.update(n)
	}
}

func (p *progress) animate() {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			p.mu.Lock()
			p.tick++
			if !p.stopped && p.now().Sub(p.start) >= progressDelay {
				p.draw()
			}
			p.mu.Unlock()
		}
	}
}

func (p *progress) update(n *mcp.ProgressNotificationParams) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.last = n
	if p.live {
		if p.now().Sub(p.start) >= progressDelay {
			p.draw()
		}
		return
	}
	fmt.Fprintf(p.w, "mcpc: progress: %s\n", p.text())
}

// pause clears the live line and keeps it away while a question is
// asked on the terminal; resume lets it come back.
func (p *progress) pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused++
	if p.shown && !p.stopped {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

func (p *progress) resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused--
}

// draw rewrites the live line; p.mu is held.
func (p *progress) draw() {
	if p.paused > 0 {
		return
	}
	line := spinner[p.tick%len(spinner)] + " " + p.text()
	if utf8.RuneCountInString(line) > p.width-1 {
		line = string([]rune(line)[:p.width-2]) + "…"
	}
	if p.color {
		line = "\x1b[36m" + line[:1] + "\x1b[0m" + line[1:]
	}
	fmt.Fprint(p.w, "\r\x1b[K"+line)
	p.shown = true
}

// text is "message done/total (percent) elapsed", whatever of it is known.
func (p *progress) text() string {
	var parts []string
	if n := p.last; n != nil {
		if m := format.OneLine(n.Message); m != "" {
			parts = append(parts, m)
		}
		switch {
		case n.Total > 0:
			parts = append(parts, fmt.Sprintf("%s/%s (%d%%)", num(n.Progress), num(n.Total), int(100*n.Progress/n.Total)))
		case n.Progress > 0:
			parts = append(parts, num(n.Progress))
		}
	}
	parts = append(parts, p.now().Sub(p.start).Truncate(100*time.Millisecond).String())
	return strings.Join(parts, " ")
}

func num(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// stop ends the display and clears the live line, before the result is
// printed.
func (p *progress) stop(st *state) {
	if p == nil {
		return
	}
	st.progress.CompareAndSwap(p, nil)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	close(p.done)
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
