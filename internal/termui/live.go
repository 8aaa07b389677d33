package termui

import (
	"bytes"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// ProgressDisplay shows the progress of the one request being shown on
// stderr: the server's progress notifications (ConnectOptions.Progress)
// and a task's status messages feed it; an elicitation's question pauses
// it. The zero value shows nothing until Start.
type ProgressDisplay struct {
	cur atomic.Pointer[Progress]
}

// ProgressTerm is the stderr progress is shown on.
type ProgressTerm struct {
	Stderr io.Writer
	TTY    bool // stderr is a terminal
	Getenv func(string) string
	Width  int
	Now    func() time.Time
}

// live says a live line can be drawn: a terminal that understands
// cursor control.
func (t ProgressTerm) Live() bool { return t.TTY && t.Getenv("TERM") != "dumb" }

// Start begins showing progress for one request; stop ends the display
// and clears the live line, before the result is printed. On a terminal
// that understands cursor control it is one live line; elsewhere, only
// when asked for (--progress), one line per notification.
func (d *ProgressDisplay) Start(t ProgressTerm, asked bool) (stop func()) {
	live := t.Live()
	if !live && !asked {
		return func() {}
	}
	p := StartProgress(t.Stderr, live, live && t.Getenv("NO_COLOR") == "", t.Width, t.Now)
	d.cur.Store(p)
	return func() {
		d.cur.CompareAndSwap(p, nil)
		p.Stop()
	}
}

// Notify is the session's progress handler: it feeds the request being
// shown.
func (d *ProgressDisplay) Notify(n *mcp.ProgressNotificationParams) {
	if p := d.cur.Load(); p != nil {
		p.Update(&Status{Message: n.Message, Progress: n.Progress, Total: n.Total})
	}
}

// TaskStatus shows a task's status message on the progress line.
func (d *ProgressDisplay) TaskStatus(status, message string) {
	msg := message
	if msg == "" {
		msg = status
	}
	if p := d.cur.Load(); p != nil && p.Shows(msg) {
		return
	}
	d.Notify(&mcp.ProgressNotificationParams{Message: msg})
}

// Pause keeps the live line away from a question on stderr until resume.
func (d *ProgressDisplay) Pause() (resume func()) {
	p := d.cur.Load()
	if p == nil {
		return func() {}
	}
	p.Pause()
	return p.Resume
}

// StartUp is where a start is shown while it is waited for: the live
// progress line, on a terminal only (elsewhere nothing changes). A
// server that takes 20 s to start (npx fetching a package) must not look
// like a hung mcpc.
type StartUp struct {
	Display *ProgressDisplay
	Term    ProgressTerm
	// Secrets are redacted from the server's line before it is cut to
	// fit (nil: none).
	Secrets *redact.Set
}

// begin shows what (then the elapsed time) on the live line; status adds
// a line after it (the server's last on stderr), until stop ends it all.
func (u *StartUp) Begin(what string) (status func(string), stop func()) {
	end := u.Display.Start(u.Term, false)
	var stopped atomic.Bool
	status = func(line string) {
		if stopped.Load() {
			return // the line is another request's now
		}
		u.Display.Notify(&mcp.ProgressNotificationParams{Message: u.shown(what, line)})
	}
	status("")
	return status, func() {
		stopped.Store(true)
		end()
	}
}

// shown is the live line's message: what, then the server's line cut to
// fit, so that the elapsed time after it stays in view. The line is
// redacted before the cut: a secret cut short would no longer be one the
// redacting stderr knows.
func (u *StartUp) shown(what, line string) string {
	if line = textsafe.OneLine(u.Secrets.String(line)); line != "" {
		return what + ": " + textsafe.Clip(line, shownLine)
	}
	return what
}

// shownLine is the most columns of the server's line on the live line.
const shownLine = 50

// LogTail is the last whole line of the file at path, from its last
// 4KiB; "" when there is none.
func LogTail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	b := make([]byte, min(fi.Size(), 4<<10))
	n, _ := f.ReadAt(b, fi.Size()-int64(len(b)))
	b = b[:n]
	end := bytes.LastIndexByte(b, '\n')
	if end < 0 {
		return ""
	}
	return string(b[bytes.LastIndexByte(b[:end], '\n')+1 : end])
}

// Pausing writes to w with the live line cleared first.
type Pausing struct {
	W     io.Writer
	Pause func() (resume func())
}

func (p *Pausing) Write(b []byte) (int, error) {
	defer p.Pause()()
	return p.W.Write(b)
}

// LastLine passes a server's stderr on to w and gives show each whole
// line as it ends (the last of a write): what a start waits on is
// usually in it ("downloading…").
type LastLine struct {
	W    io.Writer
	Show func(string)

	mu   sync.Mutex
	part []byte // the line so far, cut at maxShownLine
}

// maxShownLine bounds the part of a line kept for the live line, which
// shows less than that.
const maxShownLine = 512

func (l *LastLine) Write(b []byte) (int, error) {
	l.mu.Lock()
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		line := b[:i]
		if j := bytes.LastIndexByte(line, '\n'); j >= 0 {
			line, l.part = line[j+1:], l.part[:0]
		}
		if n := maxShownLine - len(l.part); len(line) > n {
			line = line[:max(n, 0)]
		}
		if s := string(append(l.part, line...)); textsafe.OneLine(s) != "" {
			l.Show(s)
		}
		b2 := b[i+1:]
		l.part = append(l.part[:0], b2[:min(len(b2), maxShownLine)]...)
	} else if n := maxShownLine - len(l.part); n > 0 {
		l.part = append(l.part, b[:min(len(b), n)]...)
	}
	l.mu.Unlock()
	return l.W.Write(b)
}
