package conn

import (
	"context"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// resumed is how a session opened for a detached task speaks.
type resumed struct {
	version   string
	sessionID string
}

// records is the record store of the session's server's detached tasks
// (nil without a memo: nothing is remembered).
func (s *Conn) records() *state.Tasks { return s.opts.Memo.Tasks(s.key) }

// TaskRecords returns the remembered detached tasks of the session's
// server, oldest first.
func (s *Conn) TaskRecords() []*state.TaskRecord { return s.records().List() }

// RememberedTasks returns the detached tasks mcpc remembers on the entry's
// server, oldest first, without reaching it (for shell completion).
func RememberedTasks(e *config.Entry, memo *state.Memo, cwd string) []*state.TaskRecord {
	return memo.Tasks(ServerKey(e, cwd)).List()
}

// OpenTasks reaches an HTTP server to work on its tasks, without a
// handshake: a 2025 server's tasks belong to the session that started
// them, which the SDK cannot resume, so mcpc speaks with the remembered
// session id itself; a 2026-07-28 server needs no session. id names the
// task ("" for all remembered ones, as tasks/list wants).
func OpenTasks(ctx context.Context, e *config.Entry, o ConnectOptions, id string) (*Conn, error) {
	if e.Server.URL == "" {
		return nil, fail.New(fail.Usage, "run the call without --detach to wait for its result",
			"%s is a stdio server: its tasks end with the invocation that starts them, so there are none to reach later", e.Label())
	}
	key := ServerKey(e, o.Cwd)
	w := newWire()
	w.memo, w.serverKey, w.noCache, w.meta, w.verbose = o.Memo, key, true, o.TraceMeta, o.Verbose
	s := &Conn{Entry: e, Label: e.Label(), wire: w, key: key, opts: o, era: era{source: "memo"},
		maxMessage: MessageLimit(e, o), idle: transport.NewIdleWatch(o.IdleTimeout)}
	s.input = s.newInput(o.Input)
	if err := s.prepareHTTP(o); err != nil {
		return nil, err
	}
	var rec *state.TaskRecord
	if id != "" {
		rec = s.records().Get(id)
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
	switch {
	case rec != nil:
		s.resumed = resumed{version: rec.ProtocolVersion, sessionID: rec.SessionID}
		if rec.Credential != "" && s.wire.credKey != "" && rec.Credential != s.wire.credKey {
			return nil, fail.New(fail.AuthFailed, "use the credential the task was started with",
				"the task %s was started on %s with another credential than the one in use now", rec.TaskID, s.Label)
		}
	default:
		// A 2026-07-28 task is a handle of its own: no record needed.
		if era := o.Memo.EraVersion(key); era >= modernVersion {
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

// UseHTTPSession switches a resumed session to another remembered 2025
// session.
func (s *Conn) UseHTTPSession(id string) { s.resumed.sessionID = id }

// Modern reports whether the connection speaks 2026-07-28.
func (s *Conn) Modern() bool { return s.modern() }
