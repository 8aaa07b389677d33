package sessions

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// KeepAlive makes sure a session holds entry when its "keepAlive" asks
// for one: its first use starts the session (the holder of s.HolderArgs,
// named after the entry), and a session of it that ended is started
// again with a note. A script that asked for keepAlive wants the server
// held, not exit 5 (that is an explicit session's answer).
//
// The start happens under the session's lock, after looking again: of
// concurrent first uses one starts the holder, the others find it
// running once the lock is theirs.
//
// Before the lock, a holder whose process runs is taken as it is (probe
// false): the connect that follows is what dials it, and a holder that
// is ending (running, no longer answering) fails that connect, whose
// retry (KeepAlive with probe) probes its socket and starts it again.
//
// running is the record it found running (its caller's to use rather
// than read again), nil when there was none to find or it started one.
func (s *Sessions) KeepAlive(ctx context.Context, entry *config.Entry, probe bool) (running *state.SessionRecord, started bool, err error) {
	idle := time.Duration(entry.Server.KeepAlive)
	if idle <= 0 || entry.File == nil || s.HolderArgs == nil {
		return nil, false, nil
	}
	name := entry.Name
	if rec := s.Store.Read(name); rec != nil && rec.Ended == "" {
		running := !probe && HolderRunning(rec)
		if probe {
			if running, err = holderAlive(ctx, rec); err != nil {
				return nil, false, err // hung: not one to start again beside
			}
		}
		if running {
			// Running: this entry's to use, or another target's, which
			// Held leaves alone.
			return rec, false, nil
		}
	}
	unlock, err := s.Store.Lock(ctx, name)
	if err != nil {
		return nil, false, fmt.Errorf("cannot lock session %s: %w", textsafe.Name(name), err)
	}
	defer unlock()
	rec := s.Store.Read(name)
	if rec != nil && rec.Ended == "" {
		alive, err := holderAlive(ctx, rec)
		if err != nil {
			return nil, false, err // hung
		}
		if alive {
			return rec, false, nil // started while this invocation waited for the lock
		}
	}
	if rec != nil {
		why := rec.Ended
		if why == "" && !HolderRunning(rec) {
			why = holderKilled(rec.PID)
		}
		// A holder alive but not answering is ending on its own (idle,
		// stopped): its session ended as asked, which is no news.
		if why != "" {
			textsafe.Note(s.Notes, "session %s ended (%s): starting it again (keepAlive); what the server held is lost", textsafe.Name(name), textsafe.OneLine(why))
		}
	}
	if _, err := s.Start(ctx, name, s.HolderArgs(name, idle), false); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// Start starts session name's holder, with the session start args,
// once the session's lock is the caller's and no live holder has it:
// its former record and socket go first. It returns the holder's record.
func (s *Sessions) Start(ctx context.Context, name string, args []string, shell bool) (*state.SessionRecord, error) {
	if err := s.Prepare(name); err != nil {
		return nil, err
	}
	rep, err := s.Spawn(ctx, args, shell)
	if err != nil {
		return nil, err
	}
	if f := rep.Error.Raise(nil); f != nil {
		return nil, f
	}
	return rep.Record, nil
}

// Prepare readies session name for a new holder, under the session's
// lock with no live holder: its former record and socket go, and what a
// dead holder's guard could not stop goes with them.
func (s *Sessions) Prepare(name string) error {
	if old := s.Store.Read(name); old != nil && !HolderRunning(old) {
		transport.EndRecordedGroup(old.ServerGroup, old.ServerStart)
	}
	s.Store.Remove(name)
	if _, err := s.Store.PrepareSocket(name); err != nil {
		return fmt.Errorf("cannot prepare the session's socket: %w", err)
	}
	return nil
}

// Running is session name's record when its holder answers, nil when
// there is none or it is gone; it is an error when the holder runs
// without answering.
func (s *Sessions) Running(ctx context.Context, name string) (*state.SessionRecord, error) {
	rec := s.Store.Read(name)
	if rec == nil || rec.Ended != "" {
		return nil, nil
	}
	alive, err := holderAlive(ctx, rec)
	if err != nil || !alive {
		return nil, err
	}
	return rec, nil
}
