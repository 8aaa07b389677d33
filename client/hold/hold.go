package hold

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpc-dev/mcpc/client/input"

	"github.com/mcpc-dev/mcpc/client/conn"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
)

// Holder serves one connected session, to a stdio server or a Streamable
// HTTP one, to the invocations that attach to its socket: the holder of
// mcpc session. It routes raw
// JSON-RPC messages; each invocation runs the one-shot's code above its
// transport (docs/design.md, "The session holder").
//
//   - The server's handshake was done once: an attaching invocation's
//     initialize (or server/discover) is answered from its result, and
//     its notifications/initialized is swallowed.
//   - Request ids are the holder's own on the server ("h-N"), mapped back
//     per invocation, so concurrent invocations never collide; so are
//     progress tokens ("hp-N"), so progress reaches only its request's
//     invocation.
//   - A server's request tied to a task (its _meta names the related
//     task) goes to the invocation that owns the task: the one whose
//     request created it, or that last asked about it (tasks/get,
//     tasks/result). Any other goes to the invocation with requests in
//     flight, when one has; when several have, it is refused (the
//     question names no request of ours: a guess would hand one script's
//     answers to another's question); a ping it answers itself.
//   - Every other notification (log messages, list changes) reaches
//     every attached invocation, each applying its own --log-level.
//   - An answer to a question of the server's is taken only from the
//     invocation it went to; any other is dropped and logged.
//   - An invocation that goes away has its requests cancelled on the
//     server (notifications/cancelled), and the server's questions to it
//     answered with an error.
//   - A connection takes one of the maxAttached slots only once it has
//     spoken; silent ones are bounded apart and let go (accept).
type Holder struct {
	s        Upstream
	init     json.RawMessage // the initialize result (2025 revisions)
	discover json.RawMessage // the server/discover result (2026-07-28)

	mu       sync.Mutex
	seq      int64
	calls    map[string]*route  // by the holder's id (transport.IDKey)
	progress map[string]*route  // by the holder's progress token
	asked    map[string]asked   // the server's requests, by id (transport.IDKey)
	tasks    map[string]*attach // the invocation that owns each task, by its id
	conns    map[*attach]bool
	last     time.Time // the last request or answer
	idle     time.Duration
	served   int64
	ping     chan struct{} // told of each request, for the idle bound
	stop     chan struct{} // closed by a stop request
	stopOnce sync.Once
	// gone is closed when the server is gone (a stdio server's exit, an
	// HTTP server's loss of the session: http.go), and lost says how.
	gone     <-chan struct{}
	lost     string
	lostOnce sync.Once
	lostC    chan struct{}
	// Refused, when set, is told of each connection refused as another
	// user's (CheckPeer).
	Refused func(error)
	// lists is what the holder answers itself (cache.go).
	lists *heldLists
	// Log, when set, is told what the holder has to say (its session's
	// end, an answer it dropped): its log, beside the server's stderr.
	Log func(msg string)
	// Name is the session's, for what the holder says of it.
	Name string
	// maxAttached, maxSilent and firstWait are the bounds of those
	// names (tests make them small); so is WriteWait, exported for the
	// holder's tests from outside (commands' test hooks).
	maxAttached int
	maxSilent   int
	firstWait   time.Duration
	WriteWait   time.Duration
	// wakes counts the idle loop's wake-ups (a test counts them).
	wakes atomic.Int64
	// silent is the connections waiting to be admitted (accept; a test
	// counts them).
	silent atomic.Pointer[silentConns]
}

// status is the holder's answer to holdwire.Status.
func (h *Holder) status(busy bool) json.RawMessage {
	h.mu.Lock()
	st := holdwire.StatusResult{Requests: h.served, Attached: len(h.conns), Busy: busy}
	if h.idle > 0 {
		st.IdleLeft = max(h.idle-time.Since(h.last), 0).Round(time.Second).String()
	}
	h.mu.Unlock()
	res, _ := json.Marshal(st)
	return res
}

// Upstream is the held server as the holder reaches it: the one seam
// between the holder and the connection (conn.Relay is the real one; the
// holder's tests give fakes). Besides these, NewHolder takes the
// handshake's results and the server's messages off the connection.
type Upstream interface {
	Label() string            // how messages name the server
	HTTP() bool               // posted to (Post), not a stdio process written to (WriteStdin)
	Modern() bool             // speaks 2026-07-28
	MaxMessage() int64        // the bound of one message (--max-message)
	Secrets() *redact.Set     // what the holder relays joins them; nil: none
	Envelope() map[string]any // the _meta each request carries
	WriteStdin(ctx context.Context, msg jsonrpc.Message) error
	Post(ctx context.Context, data []byte, method, name string) (*http.Response, error)
	HTTPSession() string        // the HTTP server's Mcp-Session-Id
	Server() *transport.Process // the stdio server; nil over HTTP
	Wait()                      // until the SDK's connection ends (stdio)
	FramingBroken(raise string) (f *fail.Error, how, why string)
	LimitExplained(err error, raise string) *fail.Error
	Explain(ctx context.Context, what string, err error) error
	Scrub(err error) string
}

// stdinWriteWait bounds one write to a stdio server's stdin. A server that
// stops reading it fills the pipe; the writes of every invocation would
// then wait behind the first for good. A write cut off midway leaves a
// partial message in the pipe, so the server cannot be talked to again:
// the session ends, as at the server's exit.
const stdinWriteWait = 30 * time.Second

// NewHolder makes a holder of s, a session just connected to a stdio
// or Streamable HTTP server: from now on every message from its server
// goes to the holder's routes.
func NewHolder(c *conn.Conn) (*Holder, error) {
	r, err := c.Relay()
	if err != nil {
		return nil, err
	}
	h := &Holder{s: r, calls: map[string]*route{}, progress: map[string]*route{}, asked: map[string]asked{}, tasks: map[string]*attach{},
		conns: map[*attach]bool{}, last: time.Now(), ping: make(chan struct{}, 1), stop: make(chan struct{}),
		lostC: make(chan struct{}), lists: newHeldLists(r.MaxMessage()), maxAttached: maxAttached, maxSilent: maxSilent, firstWait: firstMessageWait, WriteWait: stdinWriteWait}
	h.gone = h.lostC
	if p := r.Server(); p != nil {
		h.gone = p.Done()
	}
	h.init, h.discover = r.Handshake()
	r.Divert(h.fromServer, h.unreadable)
	h.watchFraming()
	h.watchCapabilities()
	h.listen()
	return h, nil
}

// HolderInput is what a holder's own session answers with: nothing,
// since every question of the server's goes to an attached invocation
// (one with a request in flight; else it is refused). But the handshake
// of a 2025 server is the holder's, once for every invocation, so it
// declares what they answer (elicitation), or the server would never
// ask them.
func HolderInput() *input.Input {
	return &input.Input{Elicit: func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}}
}

// ServerPID is the held server's process id; 0 for an HTTP server.
func (h *Holder) ServerPID() int {
	if p := h.s.Server(); p != nil {
		return p.PID()
	}
	return 0
}

// ServerGroup is the held stdio server's process group (transport's
// Process.Group); false for an HTTP server.
func (h *Holder) ServerGroup() (int, bool) {
	if p := h.s.Server(); p != nil {
		return p.Group(), true
	}
	return 0, false
}

// send passes msg on to the server beside the holder's own SDK session:
// written to a stdio server's stdin, posted to an HTTP server (relay).
func (h *Holder) send(ctx context.Context, msg jsonrpc.Message) error {
	if secrets := h.s.Secrets(); secrets != nil {
		// What a relay sends (a DPoP proof, a refreshed token) joins the
		// holder's secrets, as a one-shot's requests join its own.
		ctx = redact.NewContext(ctx, secrets)
	}
	if !h.s.HTTP() {
		return h.writeStdin(ctx, msg)
	}
	return h.relay(ctx, msg)
}

// writeStdin writes msg to the stdio server within WriteWait; one that
// does not finish in time ends the session (stdinWriteWait). The write
// itself is let go when the session's end stops the server (its stdin
// closed, its process ended).
func (h *Holder) writeStdin(ctx context.Context, msg jsonrpc.Message) error {
	stall := time.AfterFunc(h.WriteWait, func() {
		why := fmt.Sprintf("%s stopped reading its stdin: a message to it was not taken within %s, so the session ended and the server was stopped", h.s.Label(), h.WriteWait)
		if h.Log != nil {
			h.Log(why)
		}
		h.end(why)
	})
	defer stall.Stop()
	return h.s.WriteStdin(ctx, msg)
}

// Served is how many requests the holder has passed on.
func (h *Holder) Served() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.served
}

// Serve accepts invocations on ln until ctx ends, the server exits, or
// no request came for idle (0: no bound). It says why it ended when that
// was the server's exit ("" otherwise) and whether it was idle.
func (h *Holder) Serve(ctx context.Context, ln net.Listener, idle time.Duration) (serverEnded string, idled bool) {
	h.mu.Lock()
	h.idle = idle
	h.mu.Unlock()
	served := make(chan struct{})
	defer close(served)
	go h.accept(ln, served)
	var idleC <-chan time.Time
	var timer *time.Timer
	if idle > 0 {
		timer = time.NewTimer(idle)
		defer timer.Stop()
		idleC = timer.C
	}
	for {
		select {
		case <-ctx.Done():
			return "", false
		case <-h.stop:
			return "", false
		case <-h.gone:
			return h.serverEnd(), false
		case <-h.lostC:
			return h.serverEnd(), false
		case <-h.ping:
		case <-idleC:
			h.wakes.Add(1)
		}
		if timer == nil {
			continue
		}
		h.mu.Lock()
		busy, left := len(h.calls) > 0, idle-time.Since(h.last)
		h.mu.Unlock()
		switch {
		case busy:
			// No bound runs while a request does: the end of the last one
			// pings (forget), and the bound counts from there.
			timer.Stop()
			idleC = nil
		case left <= 0:
			return "", true
		default:
			timer.Reset(left)
			idleC = timer.C
		}
	}
}

// serverEnd says how the held server ended, with its last words.
func (h *Holder) serverEnd() string {
	select {
	case <-h.lostC:
		return h.lost // an HTTP session lost, a stdio server that stopped reading
	default:
	}
	p := h.s.Server()
	if p == nil {
		return h.lost
	}
	if why := h.framingBroken(); why != "" {
		return why
	}
	msg := "server " + p.ExitStatus()
	if !strings.HasPrefix(p.ExitStatus(), "killed") {
		msg = "server exited with " + p.ExitStatus()
	}
	if lines := p.StderrTail(); len(lines) > 0 {
		msg += "; its last words on stderr: " + strings.Join(lines[max(0, len(lines)-3):], " | ")
	}
	return msg
}

// Close drops every attached invocation, after at most a second in all
// (not for each) for what they were sent to be written: the server
// waits for it to end.
func (h *Holder) Close() {
	deadline := time.Now().Add(time.Second)
	for _, a := range h.attached() {
		a.flush(time.Until(deadline))
		a.close()
	}
}

func (h *Holder) touch() {
	h.mu.Lock()
	h.last = time.Now()
	h.mu.Unlock()
	h.wake()
}

// wake tells Serve's idle loop to look again; it never blocks.
func (h *Holder) wake() {
	select {
	case h.ping <- struct{}{}:
	default:
	}
}
