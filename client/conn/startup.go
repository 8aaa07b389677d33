package conn

import (
	"bytes"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/config"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// StartUp is where a start is shown while it is waited for: the live
// progress line, on a terminal only (elsewhere nothing changes). A
// server that takes 20 s to start (npx fetching a package) must not look
// like a hung mcpc.
type StartUp struct {
	Display *ProgressDisplay
	Term    ProgressTerm
	// Secrets are redacted from the server's line before it is cut to
	// fit (nil: none).
	Secrets *redaction.Set
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

// startUp is o while a stdio server starts: the live line says so, with
// the server's last stderr line (o.stderrLine), and what else writes to
// stderr meanwhile (the server's stderr passed on, a note, a trace line)
// clears it first. stop ends it once the server answered, or failed.
func (o ConnectOptions) startUp(e *config.Entry) (_ ConnectOptions, stop func()) {
	if o.StartUp == nil || e.Server.URL != "" || o.Held != nil {
		return o, func() {}
	}
	what := "starting the server" // a --stdio command line is too long to show
	if e.File != nil {
		what = "starting " + e.Label()
	}
	status, stop := o.StartUp.Begin(what)
	pause := o.StartUp.Display.Pause
	if o.ServerStderr != nil {
		o.ServerStderr = &pausing{w: o.ServerStderr, pause: pause}
		o.stderrLine = status
	}
	if o.Input != nil && o.Input.Note != nil {
		in := *o.Input
		note := in.Note
		in.Note = func(msg string) { defer pause()(); note(msg) }
		o.Input = &in
	}
	if v := o.Verbose; v != nil {
		o.Verbose = func(line string) { defer pause()(); v(line) }
	}
	return o, stop
}

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

// pausing writes to w with the live line cleared first.
type pausing struct {
	w     io.Writer
	pause func() (resume func())
}

func (p *pausing) Write(b []byte) (int, error) {
	defer p.pause()()
	return p.w.Write(b)
}

// lastLine passes a server's stderr on to w and gives show each whole
// line as it ends (the last of a write): what a start waits on is
// usually in it ("downloading…").
type lastLine struct {
	w    io.Writer
	show func(string)

	mu   sync.Mutex
	part []byte // the line so far, cut at maxShownLine
}

// maxShownLine bounds the part of a line kept for the live line, which
// shows less than that.
const maxShownLine = 512

func (l *lastLine) Write(b []byte) (int, error) {
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
			l.show(s)
		}
		b2 := b[i+1:]
		l.part = append(l.part[:0], b2[:min(len(b2), maxShownLine)]...)
	} else if n := maxShownLine - len(l.part); n > 0 {
		l.part = append(l.part, b[:min(len(b), n)]...)
	}
	l.mu.Unlock()
	return l.w.Write(b)
}
