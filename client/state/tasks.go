package state

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fsx"
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

// Tasks is the record store of one server's detached tasks: one file per
// task in Dir, named by a hash of its id. A nil *Tasks (no memo) stores
// nothing and finds nothing.
//
// Invocations change one record at once (a task cancel marks it
// cancelled while a task result settles it), so every write takes the
// store's lock in Locks and a change re-reads the record under it: each
// change survives the others. One lock for the store, not one per record:
// a lock file cannot be removed safely while another process may wait on
// it, and one per task would pile up; a holder keeps it for one small
// read and write.
type Tasks struct {
	Dir   string // $XDG_STATE_HOME/mcpc/tasks/<server key>
	Locks string // the lock files, $XDG_STATE_HOME/mcpc/locks ("": Dir)
}

// Tasks is the record store of server key's detached tasks, nil for a nil
// memo.
func (m *Memo) Tasks(key string) *Tasks {
	if m == nil {
		return nil
	}
	stateDir := filepath.Dir(m.EraDir)
	return &Tasks{Dir: filepath.Join(stateDir, "tasks", key), Locks: filepath.Join(stateDir, "locks")}
}

// lockWait bounds the wait for the store's lock. Its holder only reads and
// writes one small file; one that holds it longer is stuck, and a record
// not changed costs less than an invocation that hangs.
const lockWait = 10 * time.Second

// locked runs f under the store's lock; a nil store does nothing.
func (t *Tasks) locked(f func() error) error {
	if t == nil {
		return nil
	}
	path := fsx.LockPath(cmp.Or(t.Locks, t.Dir), t.Dir)
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	unlock, err := fsx.Lock(ctx, path)
	if err != nil {
		return fmt.Errorf("cannot lock %s: %w", path, err)
	}
	defer unlock()
	return f()
}

// fileName is the record file of task id: a hash, since ids come from the
// server.
func fileName(id string) string { return HashKey("task", id) + ".json" }

func (t *Tasks) path(id string) string { return filepath.Join(t.Dir, fileName(id)) }

// Put stores r, replacing any record of the same task.
func (t *Tasks) Put(r *TaskRecord) error {
	return t.locked(func() error { return writeJSON(t.Dir, fileName(r.TaskID), r) })
}

// Get returns the record of task id, or nil.
func (t *Tasks) Get(id string) *TaskRecord {
	if t == nil {
		return nil
	}
	var r TaskRecord
	if !readJSON(t.path(id), &r) || r.TaskID != id {
		return nil
	}
	return &r
}

// List returns the records, oldest first. Expired ones are dropped on the
// way: their tasks are gone from the server too.
func (t *Tasks) List() []*TaskRecord {
	if t == nil {
		return nil
	}
	entries, _ := os.ReadDir(t.Dir)
	var out []*TaskRecord
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		var r TaskRecord
		path := filepath.Join(t.Dir, e.Name())
		if !readJSON(path, &r) || r.TaskID == "" {
			continue
		}
		if r.expired(time.Now()) {
			os.Remove(path)
			continue
		}
		out = append(out, &r)
	}
	slices.SortFunc(out, func(a, b *TaskRecord) int { return a.At.Compare(b.At) })
	return out
}

// Update applies change to the record of task id, read under the lock,
// and stores it if change says it changed something. A missing record is
// left missing.
func (t *Tasks) Update(id string, change func(*TaskRecord) bool) error {
	return t.locked(func() error {
		r := t.Get(id)
		if r == nil || !change(r) {
			return nil
		}
		return writeJSON(t.Dir, fileName(id), r)
	})
}

// MarkCancelled remembers that the user cancelled the task, so that its
// end is reported as theirs, not the server's. Failing to remember costs
// that precision only, so errors are dropped.
func (t *Tasks) MarkCancelled(id string) {
	t.set(id, func(r *TaskRecord) *bool { return &r.Cancelled })
}

// Settle notes that nothing is left to reach of the task (see
// TaskRecord.Settled).
func (t *Tasks) Settle(id string) {
	t.set(id, func(r *TaskRecord) *bool { return &r.Settled })
}

// set turns on the flag of task id's record that field names. Most tasks
// settled were never remembered (a call followed to its end, a listed
// task), so a record missing or already flagged takes no lock: only the
// invocation that starts a task creates its record, and a flag once on
// stays on.
func (t *Tasks) set(id string, field func(*TaskRecord) *bool) {
	if r := t.Get(id); r == nil || *field(r) {
		return
	}
	t.Update(id, func(r *TaskRecord) bool {
		f := field(r)
		changed := !*f
		*f = true
		return changed
	})
}

// Remove drops the record of task id.
func (t *Tasks) Remove(id string) {
	t.locked(func() error { return os.Remove(t.path(id)) })
}
