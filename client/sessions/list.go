package sessions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/suggest"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// SessionShown is what session start prints of a session.
type SessionShown struct {
	Name      string `json:"name"`
	Server    string `json:"server"`
	Transport string `json:"transport"`
	Revision  string `json:"revision"`
	PID       int    `json:"pid"`
	Idle      string `json:"idle"`
	Shell     int    `json:"shell,omitempty"` // --shell: the process whose exit ends it
}

// ShownSession is what session start prints of r.
func ShownSession(r *state.SessionRecord) SessionShown {
	return SessionShown{Name: r.Name, Server: r.Server, Transport: r.Transport, Revision: r.Revision, PID: r.PID, Idle: r.Idle, Shell: r.Shell}
}

// SessionListed is one line of mcpc session list.
type SessionListed struct {
	SessionShown
	Status   string `json:"status"` // running, stale, removed, ended, gone, busy, not answering, other user (status.go)
	Ended    string `json:"ended,omitempty"`
	Age      string `json:"age"`
	IdleLeft string `json:"idleLeft,omitempty"`
	Requests int64  `json:"requests"` // passed on to the server
	// Memory is the holder's resident memory in bytes (Linux; absent
	// elsewhere), its server's not counted.
	Memory int64 `json:"memory,omitempty"`
}

// entryStatus is what session list says of the configured entry rec
// holds, when that is not "running": "removed" when the file it came
// from no longer defines it, "stale" when it was changed since the
// session started (it runs the older definition). loadConfig is
// s.Config, once for every session listed.
func (s *Sessions) entryStatus(loadConfig func() (*config.Config, error), rec *state.SessionRecord) string {
	if adhocRecord(rec) {
		return "" // an ad-hoc target is its command line or URL: never changed
	}
	cfg, err := loadConfig()
	if err != nil {
		return ""
	}
	if removedFrom(cfg, rec) != nil {
		return StatusRemoved
	}
	if rec.Def == "" {
		return ""
	}
	e, err := cfg.Resolve(rec.Server, s.AdHoc)
	if err != nil || EntryIdentity(e, rec.Name) != rec.Entry {
		return "" // not the entry it started for, seen from here
	}
	if conn.SessionKey(e, "") != rec.Def {
		return StatusStale
	}
	return ""
}

// List is every session, each asked how it is.
func (s *Sessions) List(ctx context.Context) []SessionListed {
	out := []SessionListed{}
	loadConfig := sync.OnceValues(s.Config)
	for _, rec := range s.Store.List() {
		l := SessionListed{SessionShown: ShownSession(rec), Status: "running", Ended: rec.Ended,
			Age: s.Now().Sub(rec.Started).Round(time.Second).String()}
		if rec.Ended != "" {
			l.Status = StatusEnded
		} else if look := lookHolder(ctx, rec); look.status == StatusRunning {
			st := look.res
			l.Requests, l.IdleLeft, l.Memory = st.Requests, st.IdleLeft, transport.ProcessRSS(rec.PID)
			if st := s.entryStatus(loadConfig, rec); st != "" {
				l.Status = st
			}
			if note := StatelessNote(rec); note != "" {
				textsafe.Note(s.Notes, "%s", note)
			}
		} else {
			l.Status = look.status
			if look.status == StatusBusy && look.res.Busy {
				// Its lobby answered: what it serves is known.
				l.Requests, l.IdleLeft, l.Memory = look.res.Requests, look.res.IdleLeft, transport.ProcessRSS(rec.PID)
			}
			s.noteLook(rec, look)
		}
		out = append(out, l)
	}
	return out
}

// Stop ends the sessions names (every session when there are none, and
// every holder of the store no record names: stopStrays), and returns
// once their holders, and so their servers, are gone.
func (s *Sessions) Stop(ctx context.Context, names []string) error {
	if len(names) == 0 {
		for _, r := range s.Store.List() {
			names = append(names, r.Name)
		}
		if err := s.stopNames(ctx, names); err != nil {
			return err
		}
		strays, err := s.stopStrays(ctx)
		if len(names) == 0 && strays == 0 && err == nil {
			textsafe.Note(s.Notes, "no session is running: nothing to stop")
		}
		return err
	}
	return s.stopNames(ctx, names)
}

// stopNames ends the sessions names.
func (s *Sessions) stopNames(ctx context.Context, names []string) error {
	// Every session is checked before any is stopped: a refusal changes
	// nothing.
	for _, name := range names {
		if err := s.ownSession(name); err != nil {
			return err
		}
	}
	for _, name := range names {
		if err := s.stop(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

// stopStrays stops the holders of this store that no record names (their
// record removed, or replaced by another holder's), found by process
// (holderTag; Linux): reachable by no command, they would run, with their
// servers, for good. Each is asked to end as SIGTERM asks (its server is
// stopped on the way out), and killed if it does not.
func (s *Sessions) stopStrays(ctx context.Context) (int, error) {
	var stray []transport.Found
	for _, p := range transport.FindProcesses(HolderCommand, s.holderTag()) {
		// Looked up again, now: a holder a concurrent session start
		// launched may have written its record since the records were
		// listed, and is no stray.
		if !s.recorded(p.PID) {
			stray = append(stray, p)
		}
	}
	found := stray
	for _, p := range found {
		rec := &state.SessionRecord{PID: p.PID, HolderStart: p.Start}
		if proc, err := os.FindProcess(p.PID); err == nil && HolderRunning(rec) {
			stopHolder(proc)
		}
		if err := waitGone(ctx, rec, 10*time.Second); err != nil {
			return 0, err
		}
		if _, err := killHung(ctx, rec); err != nil {
			return 0, err
		}
		textsafe.Note(s.Notes, "a session's holder (pid %d) had no record (removed?): it was stopped, and its server with it", p.PID)
	}
	return len(found), nil
}

// recorded reports whether a session's record names holder pid.
func (s *Sessions) recorded(pid int) bool {
	for _, rec := range s.Store.List() {
		if rec.PID == pid {
			return true
		}
	}
	return false
}

// ownSession refuses a session whose directory belongs to another user
// (root pointed at another user's state directory): its holder and server
// are that user's, and mcpc changes only the sessions of the user it runs
// as (fsx.IsUser), root included, as the holder serves no other.
func (s *Sessions) ownSession(name string) error {
	uid, ok := s.Store.Owner(name)
	if !ok || fsx.IsUser(uid) {
		return nil
	}
	return fail.New(fail.Connection, "nothing was changed; stop it as that user (mcpc session stop "+shellwords.Quote(name)+")",
		"session %s belongs to another user (uid %d): mcpc stops only the sessions of the user it runs as", name, uid)
}

// stop ends one session and returns once its holder, and so its server,
// is gone.
func (s *Sessions) stop(ctx context.Context, name string) error {
	rec := s.Store.Read(name)
	if rec == nil {
		textsafe.Note(s.Notes, "no session %s is running: nothing to stop", textsafe.Name(name))
		return nil
	}
	if rec.Ended == "" {
		if _, err := askHolder(ctx, rec, holdwire.Stop); err == nil {
			return s.awaitStopped(ctx, rec)
		}
	}
	if rec.Served && HolderRunning(rec) {
		// Its holder ended inside mcpc serve, which runs on: forgotten,
		// serve never signalled.
		return s.forget(ctx, name, false)
	}
	// A session that ended on its own may still have its holder winding
	// down (tearing down its server's group, saying why in the record):
	// stop returns only once it is gone, as for a live one, so that
	// nothing of the session outlives the stop. The pid is not signalled:
	// after a long wait it may be another process's.
	if err := waitGone(ctx, rec, 10*time.Second); err != nil {
		return err
	}
	hung, err := killHung(ctx, rec)
	if err != nil {
		return err
	}
	return s.forget(ctx, name, hung)
}

// awaitStopped waits for the holder of rec, told to stop, to stop its
// server and remove its record.
func (s *Sessions) awaitStopped(ctx context.Context, rec *state.SessionRecord) error {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		cur := s.Store.Read(rec.Name)
		if cur == nil && (rec.Served || !HolderRunning(rec)) {
			return nil // a holder inside mcpc serve ends, serve runs on
		}
		if cur != nil && rec.Served && cur.PID == rec.PID && cur.Ended != "" {
			return s.forget(ctx, rec.Name, false)
		}
		if cur != nil && cur.PID == rec.PID && cur.Ended != "" && !HolderRunning(rec) {
			// It was ending on its own (its server gone, or a fault
			// that ends a session) as it was told to stop: its record
			// says why, and stays for the next command to say it.
			return s.forget(ctx, rec.Name, false)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return fail.New(fail.Timeout, fmt.Sprintf("its holder is pid %d", rec.PID), "session %s did not end within 30s", textsafe.Name(rec.Name))
}

// killHung kills rec's holder when it still runs: it neither answered
// nor ended (hung, stopped). Forgetting it would leave it and its server
// running for good, so it is killed, its server with it (parent-death
// signal), once its start time shows the pid is still the holder's;
// without that proof nothing is signalled and the stop fails.
func killHung(ctx context.Context, rec *state.SessionRecord) (hung bool, err error) {
	if !HolderRunning(rec) {
		return false, nil
	}
	if rec.HolderStart == "" {
		return true, fail.New(fail.Timeout, fmt.Sprintf("if pid %d is still mcpc's holder, end it with 'kill %d', then run this again", rec.PID, rec.PID),
			"session %s's holder (pid %d) does not answer and has not ended", textsafe.Name(rec.Name), rec.PID)
	}
	killHolder(rec.PID)
	if err := waitGone(ctx, rec, 10*time.Second); err != nil {
		return true, err
	}
	if HolderRunning(rec) {
		return true, fail.New(fail.Timeout, fmt.Sprintf("its holder is pid %d", rec.PID), "session %s's holder did not end when killed", textsafe.Name(rec.Name))
	}
	return true, nil
}

// forget removes the record and socket of a session whose holder is
// gone, and says so.
func (s *Sessions) forget(ctx context.Context, name string, killed bool) error {
	unlock, err := s.Store.Lock(ctx, name)
	if err != nil {
		return fmt.Errorf("cannot lock session %s: %w", textsafe.Name(name), err)
	}
	defer unlock()
	rec := s.Store.Read(name)
	if rec == nil {
		return nil
	}
	why := rec.Ended
	if why == "" {
		why = fmt.Sprintf("its holder (pid %d) was gone", rec.PID)
	}
	// The guard stops what the server started once the holder is gone;
	// a guard that could not (killed too) leaves it to this.
	if transport.EndRecordedGroup(rec.ServerGroup, rec.ServerStart) {
		textsafe.Note(s.Notes, "session %s's server had left processes running (process group %d): they were stopped", textsafe.Name(name), rec.ServerGroup)
	}
	s.Store.RemoveSocket(name)
	s.Store.Remove(name)
	if killed {
		textsafe.Note(s.Notes, "session %s's holder (pid %d) did not answer: it was killed, and its server with it", textsafe.Name(name), rec.PID)
		return nil
	}
	textsafe.Note(s.Notes, "session %s had already ended (%s): forgotten", textsafe.Name(name), textsafe.OneLine(why))
	return nil
}

// waitGone waits up to d for rec's holder to end.
func waitGone(ctx context.Context, rec *state.SessionRecord, d time.Duration) error {
	for deadline := time.Now().Add(d); HolderRunning(rec) && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// Log is the end of session name's server log: the older file first,
// then the current one, the whole cut to its last maxBytes (0: all) at a
// line's start, stripped of terminal escapes.
func (s *Sessions) Log(name string, maxBytes int) ([]byte, error) {
	if s.Store.Read(name) == nil {
		var names, shown []string
		for _, r := range s.Store.List() {
			names, shown = append(names, r.Name), append(shown, textsafe.Name(r.Name))
		}
		hint := "no session is running; start one with 'mcpc session start SERVER'"
		if len(names) > 0 {
			hint = "sessions: " + strings.Join(shown, ", ")
			hint = suggest.Hint(name, names, hint)
		}
		return nil, fail.New(fail.Config, hint, "no session %s", textsafe.Name(name))
	}
	var log []byte
	for _, path := range []string{s.Store.LogFile(name) + ".1", s.Store.LogFile(name)} {
		// A file can pass the bound by what one write brought.
		b, err := fsx.ReadFileNoFollow(path, 2*sessionLogLimit)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("cannot read session %s's log: %w", textsafe.Name(name), err)
		}
		log = append(log, b...)
	}
	if cut := len(log) - maxBytes; maxBytes > 0 && cut > 0 {
		log = log[cut:]
		if i := bytes.IndexByte(log, '\n'); i >= 0 && i < len(log)-1 {
			cut, log = cut+i+1, log[i+1:]
		}
		textsafe.Note(s.Notes, "the log's first %d bytes are left out (--max-bytes %d); --max-bytes 0 prints all of it", cut, maxBytes)
	}
	return []byte(textsafe.StripControl(string(log))), nil
}
