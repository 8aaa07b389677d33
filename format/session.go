package format

import (
	"fmt"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Session is a session as mcpc session start and session list show it as
// text: plain values, as format knows no type of the client's. Its fields
// are those of client.SessionShown, which converts to it.
type Session struct {
	Name, Server, Transport, Revision string
	PID                               int    // the holder's
	Idle                              string // a duration; "0s": until stopped
	Shell                             int    // --shell: the pid whose exit ends it
}

// SessionText is the line session start prints: the session, whether it
// was started or found running, how it ends.
func SessionText(s Session, running bool) []byte {
	what := "started"
	if running {
		what = "already running"
	}
	ends := "until stopped"
	if s.Idle != "0s" {
		ends = "ends after " + s.Idle + " idle"
	}
	if s.Shell != 0 {
		ends += fmt.Sprintf(" or when its shell (pid %d) exits", s.Shell)
	}
	return fmt.Appendf(nil, "session %s %s: %s (%s, %s), holder pid %d, %s\n",
		textsafe.Name(s.Name), what, textsafe.Name(s.Server), s.Transport, s.Revision, s.PID, ends)
}

// SessionRow is one line of session list.
type SessionRow struct {
	Session
	Status, Age, IdleLeft string
	Requests              int64
	Memory                int64  // the holder's resident bytes, 0 when unknown
	Ended                 string // why it ended, in the holder's words
}

// SessionsText is session list's text: one tab-separated line a session,
// its names printed as every message prints them (textsafe.Name).
func SessionsText(rows []SessionRow) []byte {
	var b strings.Builder
	for _, l := range rows {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\tpid %d\tage %s\trequests %d", textsafe.Name(l.Name), l.Status, textsafe.Name(l.Server), l.Revision, l.PID, l.Age, l.Requests)
		if l.IdleLeft != "" {
			fmt.Fprintf(&b, "\tidle left %s", l.IdleLeft)
		}
		if l.Memory > 0 {
			fmt.Fprintf(&b, "\tmemory %.1fMiB", float64(l.Memory)/(1<<20))
		}
		if l.Ended != "" {
			fmt.Fprintf(&b, "\tended: %s", textsafe.OneLine(l.Ended))
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}
