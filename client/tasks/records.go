package tasks

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// rememberTask records a detached task and keeps its 2025 session alive
// past this invocation.
func rememberTask(s Conn, t *Task, tool string) (*state.TaskRecord, error) {
	sc := s.Hold()
	rec := &state.TaskRecord{TaskID: t.ID, Tool: tool, ProtocolVersion: sc.ProtocolVersion, SessionID: sc.SessionID,
		Credential: sc.Credential, At: time.Now().UTC(), TTLMs: t.TTLMs}
	store := s.Records()
	if store == nil {
		return rec, nil
	}
	if err := store.Put(rec); err != nil {
		return nil, fail.Wrap(fail.Config, err, "check that the state directory is writable",
			"cannot remember the task %s in %s", t.ID, store.Dir)
	}
	return rec, nil
}

// cancelledByUser reports whether the user cancelled the task earlier.
func cancelledByUser(s Conn, id string) bool {
	r := s.Records().Get(id)
	return r != nil && r.Cancelled
}

// sessionEndBound bounds the DELETE of a kept session: the user has their
// answer already.
var sessionEndBound = 5 * time.Second

// EndSettledHTTPSessions ends (DELETE) each kept 2025 session whose remembered
// tasks are all settled, and drops their records: mcpc kept the session
// for them only. A session the server no longer knows counts as ended; one
// it could not end is kept, and tried again next time (with the rest).
func EndSettledHTTPSessions(ctx context.Context, s Conn) {
	if s.Modern() || ctx.Err() != nil {
		return
	}
	store := s.Records()
	bySession := map[string][]*state.TaskRecord{}
	for _, r := range store.List() {
		if r.SessionID != "" {
			bySession[r.SessionID] = append(bySession[r.SessionID], r)
		}
	}
	for _, sid := range slices.Sorted(maps.Keys(bySession)) {
		rs := bySession[sid]
		if slices.ContainsFunc(rs, func(r *state.TaskRecord) bool { return !r.Settled }) {
			continue
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sessionEndBound)
		err := s.EndHTTPSession(cctx, sid)
		cancel()
		if err != nil {
			// The others wait for next time too: a server that does not
			// answer must not cost sessionEndBound for each.
			s.Trace(fmt.Sprintf("could not end the session that held the tasks (%s): kept", s.Scrub(err)))
			return
		}
		s.Trace(fmt.Sprintf("ended the session that held %d settled task(s)", len(rs)))
		for _, r := range rs {
			if r.Cancelled {
				// Kept, without its session, until a grace period after
				// the task started: a later task get or result still
				// says the user cancelled it (130), not that the server
				// lost it.
				store.Update(r.TaskID, func(r *state.TaskRecord) bool {
					r.SessionID = ""
					return true
				})
				continue
			}
			store.Remove(r.TaskID)
		}
	}
}

// HTTPSessions returns the distinct 2025 sessions holding the records' tasks,
// newest first, for tasks/list.
func HTTPSessions(rs []*state.TaskRecord) []string {
	var out []string
	for i := len(rs) - 1; i >= 0; i-- {
		if sid := rs[i].SessionID; sid != "" && !slices.Contains(out, sid) {
			out = append(out, sid)
		}
	}
	return out
}
