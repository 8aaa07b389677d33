package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"syscall"

	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// The statuses of mcpc session list. Liveness is known, not guessed from
// a missed answer: gone is said of a holder whose process is gone (its pid
// runs no more, or runs another process: the record's start time), and a
// holder that runs without answering says why it does not.
const (
	StatusRunning      = "running"       // its holder answers
	StatusStale        = "stale"         // running the entry's older definition
	StatusRemoved      = "removed"       // running an entry its file no longer defines
	StatusEnded        = "ended"         // ended without being stopped; the record says why
	StatusGone         = "gone"          // its holder's process is gone
	StatusBusy         = "busy"          // its holder runs and has not taken the connection yet: every slot is taken
	StatusNotAnswering = "not answering" // its holder runs and does not answer: stopped, hung, its socket gone
	StatusOtherUser    = "other user"    // its socket, or the socket's directory, is another user's
)

// holderSilence says why rec's holder, running, has not answered: a
// stopped process is stopped whatever waits on its socket; one that runs
// with connections waiting in its socket's backlog has not taken them
// (it takes one when an attached invocation leaves); one that runs with
// none waiting took the connection and did not answer.
//
// A holder whose slots are all taken has taken the connection too (it
// waits apart for a slot): its lobby answers a status question at once,
// busy, where a hung holder answers nothing.
func holderSilence(rec *state.SessionRecord) holdwire.Silence {
	if transport.ProcessStopped(rec.PID) {
		return holdwire.SilenceStopped
	}
	n, ok := transport.SocketBacklog(rec.Socket)
	if ok && n > 0 {
		return holdwire.SilenceBusy
	}
	ctx, cancel := context.WithTimeout(context.Background(), holdwire.ProbeWait/2)
	defer cancel()
	if _, err := askHolder(ctx, rec, holdwire.Status); err == nil {
		return holdwire.SilenceBusy // it answers, so it lives: what it serves keeps it
	}
	if !ok {
		return holdwire.SilenceUnknown
	}
	return holdwire.SilenceHung
}

// hungHolder is the failure of a command that found rec's holder running
// without answering (why: a silence's words): it is not a live session to
// use, nor one to start another beside.
func hungHolder(rec *state.SessionRecord, why string) *fail.Error {
	q := shellwords.Quote(rec.Name)
	return fail.New(fail.Connection, "end it with 'mcpc session stop "+q+"' (its server ends with it), then start it again",
		"session %s's holder (pid %d) does not answer (%s)", textsafe.Name(rec.Name), rec.PID, why)
}

// holderLook is what a look at a session's holder found.
type holderLook struct {
	status string                // one of the statuses above but stale and ended
	why    string                // what a holder that does not answer, or is another user's, is said to be
	hung   bool                  // it runs and gives no answer: it must be ended before the session is started again
	res    holdwire.StatusResult // what one that answered said
}

// lookHolder asks rec's holder how it is, within holdwire.ProbeWait (it
// answers at once, whatever its server does); one that runs without
// answering is told apart by its process and its socket (holderSilence).
func lookHolder(ctx context.Context, rec *state.SessionRecord) holderLook {
	if !HolderRunning(rec) {
		return holderLook{status: StatusGone}
	}
	ctx, cancel := context.WithTimeout(ctx, holdwire.ProbeWait)
	defer cancel()
	res, err := askHolder(ctx, rec, holdwire.Status)
	var foreign *transport.ForeignSocketError
	switch {
	case err == nil:
		l := holderLook{status: StatusRunning}
		json.Unmarshal(res, &l.res)
		if l.res.Busy {
			l.status, l.why = StatusBusy, "every slot is taken by attached invocations"
		}
		return l
	case errors.As(err, &foreign):
		return holderLook{status: StatusOtherUser, why: foreign.Error()}
	case !HolderRunning(rec):
		return holderLook{status: StatusGone} // it ended while asked
	case errors.Is(err, fs.ErrNotExist):
		return holderLook{status: StatusNotAnswering, why: "its socket is gone"}
	case errors.Is(err, syscall.ECONNREFUSED):
		return holderLook{status: StatusNotAnswering, why: "its socket takes no connections"}
	case errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
		// Ending (idle, stopped) or refusing this user (another uid).
		return holderLook{status: StatusNotAnswering, why: "it closed the connection unanswered"}
	}
	switch q := holderSilence(rec); q {
	case holdwire.SilenceBusy:
		return holderLook{status: StatusBusy, why: "every slot is taken by attached invocations"}
	default:
		return holderLook{status: StatusNotAnswering, why: q.String(), hung: true}
	}
}

// noteLook says on s.Notes why rec is listed with a status other than
// running: what the status means for it, and what to do.
func (s *Sessions) noteLook(rec *state.SessionRecord, l holderLook) {
	q := shellwords.Quote(rec.Name)
	switch l.status {
	case StatusBusy:
		textsafe.Note(s.Notes, "session %s's holder (pid %d) is busy (%s): the next invocation waits for one to end", textsafe.Name(rec.Name), rec.PID, l.why)
	case StatusNotAnswering:
		textsafe.Note(s.Notes, "session %s's holder (pid %d) does not answer (%s): 'mcpc session stop %s' ends it and its server", textsafe.Name(rec.Name), rec.PID, l.why, q)
	case StatusOtherUser:
		textsafe.Note(s.Notes, "session %s is not this user's: %s", textsafe.Name(rec.Name), l.why)
	}
}

// heldSilence is Held.Silence for rec's holder.
func heldSilence(rec *state.SessionRecord) func() (holdwire.Silence, *fail.Error) {
	return func() (holdwire.Silence, *fail.Error) {
		q := holderSilence(rec)
		return q, hungHolder(rec, q.String())
	}
}
