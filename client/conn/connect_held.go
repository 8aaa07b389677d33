package conn

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Held is a live session's holder, as an invocation reaches it.
type Held struct {
	Name     string // the session's, for messages
	PID      int    // the holder's
	Socket   string
	Revision string // the revision the holder negotiated: no probe
	// Key identifies what the holder holds (SessionKey): results
	// are cached and tasks recorded under it. The entry that stands for
	// a --stdio session names only the connection, so it cannot tell.
	Key string
	// Ended says why the session ended, once the holder is gone ("":
	// not known), and whether its holder is alive after all.
	Ended func(ctx context.Context) (why string, alive bool)
	// Silence says why the holder, running, has not answered the
	// handshake, and the failure that names it hung.
	Silence func() (holdwire.Silence, *fail.Error)
}

// probeRefused is told that a stdio server refused the probe (or let it
// go unanswered), so that the SDK falls back to initialize: what the
// server wrote on stderr during the handshake is dropped (Gate.Noise),
// unless --verbose shows everything. Its last lines stay in the failure message of a fallback
// that fails too (Process.StderrTail), and the era memo keeps the next
// invocation from probing at all.
func (s *Conn) probeRefused() {
	if s.probeGate == nil || s.opts.Verbose != nil || s.proc == nil {
		return
	}
	s.probeGate.Noise(s.proc.StderrMark())
}

// connectHeld reaches the server through its session's holder. The
// holder answers the handshake itself, at once: one that has said
// nothing within holdwire.ProbeWait is looked at (watchHolder), and one
// stopped or hung is said to be, rather than waited for until
// --connect-timeout and the server blamed.
func (s *Conn) connectHeld(ctx context.Context, o ConnectOptions) error {
	sock, err := transport.DialSocket(ctx, o.Held.Socket)
	var foreign *transport.ForeignSocketError
	if errors.As(err, &foreign) {
		// The session is not this user's, and has not ended.
		return &fail.Error{Code: fail.Connection, Err: err,
			Msg:  fmt.Sprintf("session %s refused: its %s belongs to another user (uid %d), and a session serves only the user who started it", textsafe.Name(o.Held.Name), foreign.What, foreign.UID),
			Hint: "run mcpc as the user who started the session, or leave sessions aside with --no-session"}
	}
	if err != nil {
		return s.heldLost(ctx, err)
	}
	s.sock = sock
	hctx, hung := context.WithCancelCause(ctx)
	defer hung(nil)
	busy := s.watchHolder(hctx, hung, sock)
	err = s.handshake(hctx, o, s.newClient(o), sock.Transport(s.wire.tap, s.maxMessage), o.Held.Revision)
	if f := fail.As(context.Cause(hctx)); err != nil && f != nil && ctx.Err() == nil {
		return f
	}
	if fail.CodeOf(err) == fail.ConnectTimeout {
		// The holder answers for the server: the bound was its to meet,
		// whether or not a first byte of it came before the bound passed
		// (with a bound of a microsecond, that is the scheduler's call).
		return s.heldTimeout(busy.Load())
	}
	return err
}

// watchHolder looks at the holder each holdwire.ProbeWait that sock has not
// been answered on: a stopped holder ends the handshake (hung's cause)
// at the first look, one that took the connection and says nothing at
// the second (a loaded machine may hold a holder up for a moment; it
// does not hold it for two); a busy one is waited for, within
// --connect-timeout, and reported busy (the flag returned) if that ends.
func (s *Conn) watchHolder(ctx context.Context, hung context.CancelCauseFunc, sock *transport.Socket) *atomic.Bool {
	busy := new(atomic.Bool)
	look := s.opts.Held.Silence
	if look == nil {
		return busy
	}
	go func() {
		t := time.NewTimer(holdwire.ProbeWait)
		defer t.Stop()
		silent := false
		for {
			select {
			case <-sock.Answered():
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			q, f := look()
			busy.Store(q == holdwire.SilenceBusy)
			if q == holdwire.SilenceStopped || q == holdwire.SilenceHung && silent {
				hung(f)
				return
			}
			silent = q == holdwire.SilenceHung
			t.Reset(holdwire.ProbeWait)
		}
	}()
	return busy
}

// heldTimeout is the failure of a handshake the holder never answered
// within --connect-timeout: the holder's, not the server's (which it
// answers for). A stopped one is said to be, whatever the bound.
func (s *Conn) heldTimeout(busy bool) error {
	h, t := s.opts.Held, s.opts.ConnectTimeout
	if h.Silence != nil {
		if q, f := h.Silence(); q == holdwire.SilenceStopped {
			return f
		}
	}
	if busy {
		return fail.New(fail.ConnectTimeout, fmt.Sprintf("its attached invocations hold every slot; raise --connect-timeout (now %s) to wait longer for one", t),
			"session %s's holder (pid %d) is busy: it did not take this invocation within %s", textsafe.Name(h.Name), h.PID, t)
	}
	return fail.New(fail.ConnectTimeout, fmt.Sprintf("raise --connect-timeout (now %s)", t),
		"session %s's holder (pid %d) did not answer the handshake within %s", textsafe.Name(h.Name), h.PID, t)
}

// heldLost explains a session whose holder went away: the session's
// state is gone with it, which is said, never papered over. Finding out
// why is bounded by ctx: an invocation whose own bound passed (--timeout,
// Ctrl-C) says that, at once, and asks the holder nothing.
func (s *Conn) heldLost(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	h := s.opts.Held
	why := ""
	if h.Ended != nil {
		// The holder records why before it lets go of its invocations;
		// one killed outright is found out once its pid is gone. One
		// alive after all did not end the connection: nothing to wait for.
		for deadline := time.Now().Add(3 * time.Second); why == "" && time.Now().Before(deadline); {
			var alive bool
			if why, alive = h.Ended(ctx); why != "" || alive {
				break
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	if why == "" {
		why = "its holder went away"
	}
	return SessionEnded(h.Name, why, err)
}

// SessionEnded is the failure of a command that names a session that
// ended (why) without being stopped.
func SessionEnded(name, why string, err error) *fail.Error {
	q := shellwords.Quote(name)
	return &fail.Error{Code: fail.Connection, Err: err, Msg: fmt.Sprintf("session %s ended: %s", textsafe.Name(name), why),
		Hint: fmt.Sprintf("what the server held is lost; start it again with 'mcpc session start %s', or forget it with 'mcpc session stop %s'", q, q)}
}
