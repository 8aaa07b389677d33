package commands

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	clientstate "github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// keepAlive makes sure a session holds entry when its "keepAlive" asks
// for one: its first use starts the session (the holder of mcpc session
// start, named after the entry), and a session of it that ended is
// started again with a note. A script that asked for keepAlive wants the
// server held, not exit 5 (that is an explicit session's answer).
//
// The start happens under the session's lock, after looking again: of
// concurrent first uses one starts the holder, the others find it
// running once the lock is theirs.
//
// Before the lock, a holder whose process runs is taken as it is (probe
// false): the connect that follows is what dials it, and a holder that
// is ending (running, no longer answering) fails that connect, whose
// retry (reconnectKeptAlive) probes its socket and starts it again.
//
// running is the record it found running (its caller's to use rather
// than read again), nil when there was none to find or it started one.
func (st *state) keepAlive(ctx context.Context, g *globals, entry *config.Entry, probe bool) (running *clientstate.SessionRecord, started bool, err error) {
	idle := time.Duration(entry.Server.KeepAlive)
	if idle <= 0 || g.noSession || entry.File == nil {
		return nil, false, nil
	}
	ss := st.sessions(g)
	name := entry.Name
	if rec := ss.Read(name); rec != nil && rec.Ended == "" {
		running := !probe && holderRunning(rec)
		if probe {
			if running, err = holderAlive(ctx, rec); err != nil {
				return nil, false, err // hung: not one to start again beside
			}
		}
		if running {
			// Running: this entry's to use, or another target's, which
			// heldSession leaves alone.
			return rec, false, nil
		}
	}
	unlock, err := ss.Lock(ctx, name)
	if err != nil {
		return nil, false, fmt.Errorf("cannot lock session %s: %w", name, err)
	}
	defer unlock()
	rec := ss.Read(name)
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
		if why == "" && !holderRunning(rec) {
			why = holderKilled(rec.PID)
		}
		// A holder alive but not answering is ending on its own (idle,
		// stopped): its session ended as asked, which is no news.
		if why != "" {
			format.Note(st.env.Stderr, "session %s ended (%s): starting it again (keepAlive); what the server held is lost", name, format.OneLine(why))
		}
	}
	ss.Remove(name)
	if _, err := ss.PrepareSocket(name); err != nil {
		return nil, false, fmt.Errorf("cannot prepare the session's socket: %w", err)
	}
	rep, err := st.spawnHolder(ctx, g, st.keepAliveArgs(g, name, idle), sessionStart{})
	if err != nil {
		return nil, false, err
	}
	if rep.Error != nil {
		return nil, false, &fail.Error{Code: rep.Error.Code, Msg: rep.Error.Message, Hint: rep.Error.Hint}
	}
	return nil, true, nil
}

// reconnectKeptAlive retries, once, a connect that failed through a
// keepAlive entry's session: one that ended between keepAlive's look and
// the connect (its holder or server killed just then) is started again,
// with the note, and reached; any other failure stands.
func (st *state) reconnectKeptAlive(ctx context.Context, g *globals, entry *config.Entry, opts client.ConnectOptions, err error) (session, error) {
	if _, started, kerr := st.keepAlive(ctx, g, entry, true); kerr != nil || !started {
		return nil, cmp.Or(kerr, err)
	}
	if opts.Held, err = st.heldSession(ctx, g, entry, opts); err != nil {
		return nil, err
	}
	return st.dial().connect(ctx, entry, opts)
}

// holderKilled says why a session ended whose holder is gone without a
// word: killed outright, its server with it (parent-death signal).
func holderKilled(pid int) string {
	return fmt.Sprintf("its holder (pid %d) exited without ending it (killed?), and its server with it", pid)
}

// keepAliveArgs is the command line of the holder a keepAlive entry
// starts: session start of the entry, with what decides which entry that
// is and how it is reached (MCPC_CONFIG and the working directory reach
// the holder as they are).
func (st *state) keepAliveArgs(g *globals, name string, idle time.Duration) []string {
	args := []string{st.argv[0], "session", "start", "--idle", idle.String()}
	// g.configFiles are the --config flags, then MCPC_CONFIG's files.
	fromEnv := 0
	for _, p := range filepath.SplitList(st.env.Getenv("MCPC_CONFIG")) {
		if p != "" {
			fromEnv++
		}
	}
	for _, f := range g.configFiles[:len(g.configFiles)-fromEnv] {
		args = append(args, "--config", f)
	}
	if p := g.adhoc.Protocol; p != "" {
		args = append(args, "--protocol", p)
	}
	if g.connectTimeoutSet {
		args = append(args, "--connect-timeout", g.connectTimeout.String())
	}
	if g.probeTimeout > 0 {
		args = append(args, "--probe-timeout", g.probeTimeout.String())
	}
	if g.maxMessage > 0 {
		args = append(args, "--max-message", strconv.FormatInt(g.maxMessage, 10))
	}
	return append(args, name) // a server name never begins with "-"
}
