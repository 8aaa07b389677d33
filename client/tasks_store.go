package client

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// TaskRecord is what mcpc remembers of a detached task: what the server
// scopes it to (a 2025 session, the credential), so later invocations can
// reach it. It lives in the state dir, one private file per task.
type TaskRecord struct {
	TaskID          string `json:"taskId"`
	Tool            string `json:"tool"`
	ProtocolVersion string `json:"protocolVersion"`
	SessionID       string `json:"sessionId,omitempty"`  // 2025-11-25: the session that holds the task
	Credential      string `json:"credential,omitempty"` // keyed hash of the credential in use, never the credential
	Cancelled       bool   `json:"cancelled,omitempty"`  // by the user, with mcpc task cancel
	// Settled: the task ended and its result was fetched, or it was
	// cancelled, or the server no longer knows it: nothing is left to
	// reach. A 2025 session whose tasks are all settled is ended.
	Settled bool      `json:"settled,omitempty"`
	At      time.Time `json:"at"`
	// TTLMs is the task's lifetime as the server gave it (0: unlimited);
	// a record outlives it by recordGrace, then is dropped; a settled one
	// is dropped recordGrace after the task started.
	TTLMs int64 `json:"ttlMs,omitempty"`
}

// recordGrace is how long a record is kept after its task's ttl: the
// server may keep a task a little longer than it said.
var recordGrace = 24 * time.Hour

func (r *TaskRecord) expired(now time.Time) bool {
	if r.Settled && now.After(r.At.Add(recordGrace)) {
		// Nothing left to reach, and a ttl of null (unlimited) would keep
		// it for ever.
		return true
	}
	return r.TTLMs > 0 && now.After(r.At.Add(time.Duration(r.TTLMs)*time.Millisecond+recordGrace))
}

// resumed is how a session opened for a detached task speaks.
type resumed struct {
	version   string
	sessionID string
}

// tasksDir holds the records of a server's detached tasks.
func (s *Session) tasksDir() string {
	if s.opts.Memo == nil {
		return ""
	}
	return filepath.Join(filepath.Dir(s.opts.Memo.EraDir), "tasks", s.key)
}

// rememberTask records a detached task and keeps its 2025 session alive
// past this invocation.
func (s *Session) rememberTask(t *Task, tool string) (*TaskRecord, error) {
	rec := &TaskRecord{TaskID: t.ID, Tool: tool, ProtocolVersion: s.ProtocolVersion(), Credential: s.wire.credKey, At: time.Now().UTC(), TTLMs: t.TTLMs}
	if !s.modern() {
		rec.SessionID = s.sessionID()
		// The session holds the task: ending it would end the task.
		s.http.KeepSession()
	}
	dir := s.tasksDir()
	if dir == "" {
		return rec, nil
	}
	if err := writeJSON(dir, hashKey("task", t.ID)+".json", rec); err != nil {
		return nil, fail.Wrap(fail.Config, err, "check that the state directory is writable",
			"cannot remember the task %s in %s", t.ID, dir)
	}
	return rec, nil
}

// TaskRecords returns the remembered detached tasks of the session's
// server, oldest first.
func (s *Session) TaskRecords() []*TaskRecord {
	dir := s.tasksDir()
	if dir == "" {
		return nil
	}
	entries, _ := os.ReadDir(dir)
	var out []*TaskRecord
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		var r TaskRecord
		path := filepath.Join(dir, e.Name())
		if !readJSON(path, &r) || r.TaskID == "" {
			continue
		}
		if r.expired(time.Now()) {
			os.Remove(path) // its task is gone from the server too
			continue
		}
		out = append(out, &r)
	}
	slices.SortFunc(out, func(a, b *TaskRecord) int { return a.At.Compare(b.At) })
	return out
}

// RememberedTasks returns the detached tasks mcpc remembers on the entry's
// server, oldest first, without reaching it (for shell completion).
func RememberedTasks(e *config.Entry, memo *Memo, cwd string) []*TaskRecord {
	s := &Session{Entry: e, key: serverKey(e, cwd), opts: ConnectOptions{Memo: memo}}
	return s.TaskRecords()
}

func (s *Session) taskRecord(id string) *TaskRecord {
	dir := s.tasksDir()
	if dir == "" {
		return nil
	}
	var r TaskRecord
	if !readJSON(filepath.Join(dir, hashKey("task", id)+".json"), &r) || r.TaskID != id {
		return nil
	}
	return &r
}

// MarkCancelled remembers that the user cancelled the task, so that its
// end is reported as theirs, not the server's.
func (s *Session) MarkCancelled(id string) {
	if r := s.taskRecord(id); r != nil && !r.Cancelled {
		r.Cancelled = true
		writeJSON(s.tasksDir(), hashKey("task", id)+".json", r)
	}
}

// cancelledByUser reports whether the user cancelled the task earlier.
func (s *Session) cancelledByUser(id string) bool {
	r := s.taskRecord(id)
	return r != nil && r.Cancelled
}

// settle notes that nothing is left to reach of a remembered task (see
// TaskRecord.Settled).
func (s *Session) settle(id string) {
	if r := s.taskRecord(id); r != nil && !r.Settled {
		r.Settled = true
		writeJSON(s.tasksDir(), hashKey("task", id)+".json", r)
	}
}

// sessionEndBound bounds the DELETE of a kept session: the user has their
// answer already.
var sessionEndBound = 5 * time.Second

// EndSettledSessions ends (DELETE) each kept 2025 session whose remembered
// tasks are all settled, and drops their records: mcpc kept the session
// for them only. A session the server no longer knows counts as ended; one
// it could not end is kept, and tried again next time (with the rest).
func (s *Session) EndSettledSessions(ctx context.Context) {
	if s.modern() || s.http == nil || ctx.Err() != nil {
		return
	}
	bySession := map[string][]*TaskRecord{}
	for _, r := range s.TaskRecords() {
		if r.SessionID != "" {
			bySession[r.SessionID] = append(bySession[r.SessionID], r)
		}
	}
	for _, sid := range slices.Sorted(maps.Keys(bySession)) {
		rs := bySession[sid]
		if slices.ContainsFunc(rs, func(r *TaskRecord) bool { return !r.Settled }) {
			continue
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sessionEndBound)
		err := s.endSession(cctx, sid)
		cancel()
		if err != nil {
			// The others wait for next time too: a server that does not
			// answer must not cost sessionEndBound for each.
			trace(s.opts, "could not end the session that held the tasks (%s): kept", s.scrub(err))
			return
		}
		trace(s.opts, "ended the session that held %d settled task(s)", len(rs))
		for _, r := range rs {
			name := hashKey("task", r.TaskID) + ".json"
			if r.Cancelled {
				// Kept, without its session, until recordGrace after
				// the task started: a later task get or result still
				// says the user cancelled it (130), not that the server
				// lost it.
				r.SessionID = ""
				writeJSON(s.tasksDir(), name, r)
				continue
			}
			os.Remove(filepath.Join(s.tasksDir(), name))
		}
	}
}

// OpenTasks reaches an HTTP server to work on its tasks, without a
// handshake: a 2025 server's tasks belong to the session that started
// them, which the SDK cannot resume, so mcpc speaks with the remembered
// session id itself; a 2026-07-28 server needs no session. id names the
// task ("" for all remembered ones, as tasks/list wants).
func OpenTasks(ctx context.Context, e *config.Entry, o ConnectOptions, id string) (*Session, error) {
	if e.Server.URL == "" {
		return nil, fail.New(fail.Usage, "run the call without --detach to wait for its result",
			"%s is a stdio server: its tasks end with the invocation that starts them, so there are none to reach later", serverLabel(e))
	}
	key := serverKey(e, o.Cwd)
	w := newWire()
	w.memo, w.serverKey, w.noCache, w.meta, w.verbose = o.Memo, key, true, o.TraceMeta, o.Verbose
	s := &Session{Entry: e, Label: serverLabel(e), wire: w, key: key, opts: o, EraSource: "memo",
		maxMessage: messageLimit(e, o), idle: transport.NewIdleWatch(o.IdleTimeout)}
	s.input = &inputState{in: o.Input}
	if err := s.prepareHTTP(o); err != nil {
		return nil, err
	}
	var rec *TaskRecord
	if id != "" {
		rec = s.taskRecord(id)
	}
	if rec != nil && rec.Cancelled && rec.SessionID == "" && rec.ProtocolVersion < modernVersion {
		// Its session was ended once every task in it was settled; the
		// record stayed to say whose end it was.
		return nil, fail.New(fail.Interrupted, "", "the task %s was cancelled (mcpc task cancel)", id)
	}
	if rec == nil {
		// An id mcpc did not start: the server judges it in the latest
		// session still held (a cancelled task's record has none left).
		rs := s.TaskRecords()
		for i := len(rs) - 1; i >= 0 && rec == nil; i-- {
			if rs[i].SessionID != "" || rs[i].ProtocolVersion >= modernVersion {
				rec = rs[i]
			}
		}
	}
	s.record = rec
	switch {
	case rec != nil:
		s.resumed = resumed{version: rec.ProtocolVersion, sessionID: rec.SessionID}
		if rec.Credential != "" && s.wire.credKey != "" && rec.Credential != s.wire.credKey {
			return nil, fail.New(fail.AuthFailed, "use the credential the task was started with",
				"the task %s was started on %s with another credential than the one in use now", rec.TaskID, s.Label)
		}
	default:
		// A 2026-07-28 task is a handle of its own: no record needed.
		if era := o.Memo.eraOf(key); era >= modernVersion {
			s.resumed = resumed{version: era}
			break
		}
		if id == "" {
			return nil, fail.New(fail.Config, "start one with: mcpc call --detach SERVER TOOL",
				"mcpc remembers no detached task on %s", s.Label)
		}
		return nil, fail.New(fail.TaskGone, "mcpc task list SERVER lists the tasks mcpc remembers; task ids come from mcpc call --detach",
			"mcpc remembers no task %s on %s", id, s.Label)
	}
	return s, nil
}

func (m *Memo) eraOf(key string) string {
	if m == nil {
		return ""
	}
	if r := m.Era(key); r != nil {
		return r.Version
	}
	return ""
}

// serverLabel is how messages name the entry's server.
func serverLabel(e *config.Entry) string {
	if e.File == nil && e.Server.URL != "" {
		return "server at " + urlx.Redact(e.Server.URL)
	}
	return fmt.Sprintf("server %q", e.Name)
}

// SessionsOfTasks returns the distinct 2025 sessions holding remembered
// tasks, newest first, for tasks/list.
func (s *Session) SessionsOfTasks() []string {
	var out []string
	rs := s.TaskRecords()
	for i := len(rs) - 1; i >= 0; i-- {
		if sid := rs[i].SessionID; sid != "" && !slices.Contains(out, sid) {
			out = append(out, sid)
		}
	}
	return out
}

// UseSession switches a resumed session to another remembered 2025
// session.
func (s *Session) UseSession(id string) { s.resumed.sessionID = id }

// Modern reports whether the session speaks 2026-07-28.
func (s *Session) Modern() bool { return s.modern() }
