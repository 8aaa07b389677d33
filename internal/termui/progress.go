package termui

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// progressDelay keeps a quick call from flashing a line that is gone
// before it can be read.
const progressDelay = 300 * time.Millisecond

// redrawEvery bounds how often notifications redraw the live line: 20 times
// a second reads as live, and a terminal is slower than a flood.
const redrawEvery = 50 * time.Millisecond

var spinner = []string{"|", "/", "-", "\\"}

// Progress shows a call's progress on stderr while it runs. On a terminal
// that understands cursor control it is one live line (spinner, message,
// done/total or percent, elapsed), redrawn in place and cleared before the
// result is printed. Elsewhere, only when asked for (--progress), each
// notification is one "mcpc: progress:" line.
type Progress struct {
	w     io.Writer
	live  bool
	color bool
	width int
	now   func() time.Time

	mu      sync.Mutex
	start   time.Time
	last    *Status
	tick    int
	shown   bool
	drawn   time.Time // when the line was last drawn
	stopped bool
	paused  int // questions being asked on the terminal: no redraw meanwhile
	done    chan struct{}
}

// Status is what a progress notification says, as far as the line shows it.
type Status struct {
	Message         string
	Progress, Total float64
}

// StartProgress begins showing progress on w: live (one line redrawn in
// place, in colour when color is set, cut to width columns) or, when not
// live, one line per update.
func StartProgress(w io.Writer, live, color bool, width int, now func() time.Time) *Progress {
	p := &Progress{
		w:     w,
		live:  live,
		color: color,
		width: width,
		now:   now,
		start: now(),
		done:  make(chan struct{}),
	}
	if p.width <= 0 {
		p.width = 80
	}
	if live {
		go p.animate()
	}
	return p
}

func (p *Progress) animate() {
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

// Update shows the latest notification.
func (p *Progress) Update(n *Status) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.last = n
	if p.live {
		// A server may report every millisecond; the line is redrawn at
		// most every redrawEvery (the ticker shows the latest anyway).
		if now := p.now(); now.Sub(p.start) >= progressDelay && now.Sub(p.drawn) >= redrawEvery {
			p.draw()
		}
		return
	}
	fmt.Fprintf(p.w, "mcpc: progress: %s\n", p.text())
}

// Pause clears the live line and keeps it away while a question is
// asked on the terminal; Resume lets it come back.
func (p *Progress) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused++
	if p.shown && !p.stopped {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

func (p *Progress) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused--
}

// draw rewrites the live line; p.mu is held.
func (p *Progress) draw() {
	if p.paused > 0 {
		return
	}
	line := spinner[p.tick%len(spinner)] + " " + p.text()
	line = textsafe.Clip(line, p.width-1) // the last column would wrap on some terminals
	if p.color {
		line = "\x1b[36m" + line[:1] + "\x1b[0m" + line[1:]
	}
	fmt.Fprint(p.w, "\r\x1b[K"+line)
	p.shown, p.drawn = true, p.now()
}

// text is "message done/total (percent) elapsed", whatever of it is known.
func (p *Progress) text() string {
	var parts []string
	if n := p.last; n != nil {
		if m := textsafe.OneLine(n.Message); m != "" {
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

// Stop ends the display and clears the live line, before the result is
// printed.
func (p *Progress) Stop() {
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

// Shows says whether the last update's message was message.
func (p *Progress) Shows(message string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last != nil && p.last.Message == message
}
