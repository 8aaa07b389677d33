package commands

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/termui"
)

// progress is the request whose progress is being shown; stop forgets it.
type progress struct{ *termui.Progress }

// startProgress begins showing progress for one request, or returns nil
// when there is nothing to show it on. On a terminal that understands
// cursor control it is one live line; elsewhere, only when asked for
// (--progress), one line per notification.
func (st *state) startProgress(asked bool) *progress {
	term := st.env.Getenv("TERM")
	live := st.env.StderrTTY && term != "dumb"
	if !live && !asked {
		return nil
	}
	p := &progress{termui.StartProgress(st.env.Stderr, live, live && st.env.Getenv("NO_COLOR") == "", st.env.StderrWidth, st.env.Now)}
	st.progress.Store(p)
	return p
}

// onProgress is the session's handler: it feeds the request being shown.
func (st *state) onProgress(n *mcp.ProgressNotificationParams) {
	if p := st.progress.Load(); p != nil {
		p.Update(&termui.Status{Message: n.Message, Progress: n.Progress, Total: n.Total})
	}
}

// stop ends the display and clears the live line, before the result is
// printed.
func (p *progress) stop(st *state) {
	if p == nil {
		return
	}
	st.progress.CompareAndSwap(p, nil)
	p.Stop()
}
