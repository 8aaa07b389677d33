package conn

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// The protocol era: which revision of MCP a connection speaks. It is
// decided once per Connect, from the pin, the verdict remembered for the
// server, or a probe (SPEC-NOTES, "Eras and negotiation"), and that one
// value is what the attempt, the first request's verify and a re-probe
// consult. docs/design.md tells the whole story.

const (
	modernVersion = "2026-07-28"
	legacyVersion = "2025-11-25"
)

// JSON-RPC codes of the 2026-07-28 revision.
const (
	codeHeaderMismatch     = -32020
	codeMissingCapability  = -32021
	codeUnsupportedVersion = -32022
)

// era is the decision a connection starts with.
type era struct {
	// version is the revision to start with; "" probes with server/discover.
	version string
	// source says where the decision came from: "pin", "memo" or "probe".
	source string
	// discover is a remembered server/discover result, replayed to the SDK
	// so that the server is not asked again.
	discover json.RawMessage
	// pin is the pinned revision, "" in auto mode. It outlives a re-probe,
	// which drops only what was remembered.
	pin string
	// rec is the verdict remembered for the server, nil without one. Under
	// a pin it still says how the server was last met.
	rec *state.EraRecord
}

// chooseEra decides the era of a connection to e's server (memo key key):
// the pin (--protocol, else the entry's "protocol"), else the remembered
// verdict, else a probe. For mcpc reconnect (o.Reprobe) what was
// remembered is forgotten first, cached results with it.
func chooseEra(e *config.Entry, o ConnectOptions, key string) era {
	pin := cmp.Or(o.Protocol, e.Server.Protocol)
	if pin == "auto" {
		pin = ""
	}
	var rec *state.EraRecord
	switch {
	case o.Memo == nil:
	case o.Reprobe:
		o.Memo.Forget(key)
	default:
		rec = o.Memo.Era(key)
	}
	return newEra(pin, rec)
}

// newEra is the era a pin and a remembered verdict (either may be absent)
// make.
func newEra(pin string, rec *state.EraRecord) era {
	switch {
	case pin != "":
		e := era{version: pin, source: "pin", pin: pin, rec: rec}
		// A pinned 2026-07-28 server that was met before needs no
		// server/discover either.
		if pin >= modernVersion && rec != nil && rec.Version == pin && len(rec.Discover) > 0 {
			e.discover = rec.Discover
		}
		return e
	case rec != nil:
		e := era{version: rec.Version, source: "memo", rec: rec}
		if rec.Version >= modernVersion && len(rec.Discover) > 0 {
			e.discover = rec.Discover
		}
		return e
	}
	return era{source: "probe"}
}

// afresh is the era of a re-probe: the pin still holds, nothing
// remembered does.
func (e era) afresh() era { return newEra(e.pin, nil) }

// probes reports whether the connection starts with a probe.
func (e era) probes() bool { return e.version == "" }

// pinsModern reports whether 2026-07-28 is pinned: the SDK's fallback to
// initialize is then refused.
func (e era) pinsModern() bool { return e.pin >= modernVersion }

// remembered reports whether the decision relies on a remembered verdict
// (the remembered era, or under a pin a replayed server/discover result):
// only such a decision can be stale.
func (e era) remembered() bool { return e.source == "memo" || e.discover != nil }

// stale reports whether an attempt's failure err says the remembered
// verdict it relied on may be wrong, so that it is dropped and the server
// probed afresh. The invocation's own end (ctx) says nothing of the
// server.
func (e era) stale(ctx context.Context, err error) bool {
	return e.remembered() && ctx.Err() == nil && eraSuspect(err)
}

// diedAgain reports whether an attempt's failure err repeats a remembered
// death: a server remembered to exit on the probe (or at start), exiting
// now before it answers initialize too, is not probed again: that would
// only start it twice more to learn the same.
func (e era) diedAgain(err error) bool {
	return e.remembered() && e.rec.Died() && fail.CodeOf(err) == fail.ServerExited
}

// learned is what a successful connection that negotiated version teaches
// the memo: a verdict to remember ("" for none), or forget: the server
// remembered to die at start answered initialize, and no probe says
// whether it speaks 2026-07-28 too, so the next invocation probes rather
// than remember a guess.
func (e era) learned(version string) (verdict string, forget bool) {
	switch {
	case e.source == "probe" && version < modernVersion:
		return state.VerdictInitialize, false
	case e.source == "probe":
		return state.VerdictProbe, false
	case e.source == "pin" && e.discover == nil && version >= modernVersion:
		// A pinned 2026-07-28 handshake asked server/discover: as good as
		// a probe's answer.
		return state.VerdictProbe, false
	case e.rec != nil && e.rec.Verdict == state.VerdictDiedAtStart:
		return "", true
	}
	return "", false
}

// describe is the era as the --verbose trace names it.
func (e era) describe(stdio bool, probeBound time.Duration) string {
	switch {
	case e.probes() && stdio:
		return fmt.Sprintf("auto (probe with server/discover, bound %s) from %s", probeBound, e.source)
	case e.probes():
		return "auto (probe with server/discover) from " + e.source
	}
	return e.version + " from " + e.source
}

// eraSuspect reports whether a failure may come from speaking the wrong
// era to the server, rather than from the server, something in its place
// or the user. It reads the failure's own evidence, never its exit code:
//   - the server's JSON-RPC error: what a server answers a request of the
//     other era (-32600, -32601) or of a revision it does not speak
//     (-32022, -32020);
//   - an HTTP status without one: a 400, 404 or 405 is what a server of
//     the other era answers the handshake (or the first request, when a
//     replayed server/discover stood in for the handshake); an HTML page,
//     an empty 200 or a body that is not JSON-RPC is a sign-in page or a
//     proxy answering in the server's place, and a 5xx a server that
//     failed, whatever it speaks;
//   - the SDK's reading of a 404 as a session the server no longer knows;
//   - a stdio server that exited: some exit on what they do not know.
//
// A stdio server that writes what is not JSON-RPC, a message over a limit,
// a timeout or a refusal on auth grounds says nothing of the era.
func eraSuspect(err error) bool {
	if rpc := serverError(err); rpc != nil {
		switch rpc.Code {
		case jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, codeUnsupportedVersion, codeHeaderMismatch:
			return true
		}
		return false
	}
	var he *transport.HTTPError
	if errors.As(err, &he) {
		switch he.Status() {
		case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
			return true
		}
		return false
	}
	return errors.Is(err, mcp.ErrSessionMissing) || fail.CodeOf(err) == fail.ServerExited
}

// methodNotFound reports whether err is the server's -32601.
func methodNotFound(err error) bool {
	rpc := serverError(err)
	return rpc != nil && rpc.Code == jsonrpc.CodeMethodNotFound
}

// remember stores the verdict of a probe. A modern server's discover result
// is kept so the next invocation can replay it instead of asking.
func (s *Conn) remember(verdict string) {
	rec := &state.EraRecord{Version: s.ProtocolVersion(), Verdict: verdict}
	if s.sse {
		rec.Transport = state.TransportSSE
	}
	if rec.Version >= modernVersion {
		s.wire.mu.Lock()
		rec.Discover = s.wire.lastDiscover
		s.wire.mu.Unlock()
	}
	rememberEra(s.opts, s.key, rec)
}

// rememberDeath stores that a stdio server exits before answering either
// handshake. No session holds a version: the record's is the one to start
// it with next time.
func rememberDeath(o ConnectOptions, key string) {
	rememberEra(o, key, &state.EraRecord{Version: legacyVersion, Verdict: state.VerdictDiedAtStart})
}

func rememberEra(o ConnectOptions, key string, rec *state.EraRecord) {
	if o.Memo == nil {
		return
	}
	o.Memo.SetEra(key, rec)
	trace(o, "era verdict remembered: %s (%s)", rec.Version, rec.Verdict)
}

// reprobe connects with the era fresh (see era.afresh) after an attempt
// that relied on a remembered verdict failed with err. When that attempt's
// server died, its stderr has been shown: the new attempt's is held until
// the outcome is known and dropped if the server dies again (its last
// words are in the error), so one death is shown once.
func reprobe(ctx context.Context, e *config.Entry, o ConnectOptions, key string, fresh era, err error) (*Conn, error) {
	if o.ServerStderr == nil || e.Server.URL != "" || fail.CodeOf(err) != fail.ServerExited {
		return connectOnce(ctx, e, o, key, fresh)
	}
	gate := transport.NewGate(o.ServerStderr)
	po := o
	po.ServerStderr = gate
	s, err := connectOnce(ctx, e, po, key, fresh)
	if err != nil {
		if fail.CodeOf(err) == fail.ServerExited {
			gate.Discard()
		} else {
			releaseStderr(gate, o)
		}
		return nil, err
	}
	releaseStderr(gate, o)
	s.opts.ServerStderr = o.ServerStderr
	return s, nil
}

// verify runs a connection's first request. When a remembered verdict turns
// out wrong (the server answers as the other era), the verdict is dropped,
// the server reached afresh with a probe, and the request run again. A
// -32601 is no such sign here: the handshake's methods are the ones an
// era names, and a server that does not implement the request itself
// (one it did not declare, or one it declared and does not serve) rejects
// it whatever it speaks, so a probe would only start it again to hear the
// same.
func (s *Conn) verify(ctx context.Context, op func() error) error {
	return s.verifyOp(ctx, false, op)
}

// verifyOp is verify for op, which sends a method an era names (eraMethod:
// mcpc ping's server/discover), whose -32601 is a sign like any other.
func (s *Conn) verifyOp(ctx context.Context, eraMethod bool, op func() error) error {
	err := s.paced(ctx, op)
	if s.verified || !s.era.remembered() {
		s.verified = s.verified || err == nil
		return err
	}
	if err == nil {
		s.verified = true
		return nil
	}
	if !s.era.stale(ctx, err) || methodNotFound(err) && !eraMethod {
		return err
	}
	trace(s.opts, "the first request failed (%s): the remembered verdict may be stale; probing afresh", s.scrub(err))
	s.opts.Memo.Forget(s.key)
	s.Close()
	s2, err2 := reprobe(ctx, s.Entry, s.opts, s.key, s.era.afresh(), err)
	if err2 != nil {
		return err2
	}
	*s = *s2
	s.verified = true
	return s.paced(ctx, op)
}
