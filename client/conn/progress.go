package conn

import (
	"context"
	"io"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/tasks"
	"github.com/mcpc-dev/mcpc/internal/termui"
)

// progressToken gives every tools/call a progress token, so that a server
// that can report progress does; what mcpc shows of it is up to the
// caller's ConnectOptions.Progress.
func progressToken(next mcp.MethodHandler) mcp.MethodHandler {
	var seq atomic.Int64
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.CallToolParams); ok && method == "tools/call" && p.GetProgressToken() == nil {
			p.SetProgressToken(seq.Add(1))
		}
		return next(ctx, method, req)
	}
}

// ProgressDisplay shows the progress of the one request being shown on
// stderr: the server's progress notifications (ConnectOptions.Progress)
// and a task's status messages feed it; an elicitation's question pauses
// it. The zero value shows nothing until Start.
type ProgressDisplay struct {
	cur atomic.Pointer[termui.Progress]
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
	p := termui.StartProgress(t.Stderr, live, live && t.Getenv("NO_COLOR") == "", t.Width, t.Now)
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
		p.Update(&termui.Status{Message: n.Message, Progress: n.Progress, Total: n.Total})
	}
}

// TaskStatus shows a task's status message on the progress line.
func (d *ProgressDisplay) TaskStatus(t *tasks.Task) {
	msg := t.StatusMessage
	if msg == "" {
		msg = t.Status
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
