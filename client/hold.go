package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
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
	s        *Session
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
	// HTTP server's loss of the session: hold_http.go), and lost says how.
	gone     <-chan struct{}
	lost     string
	lostOnce sync.Once
	lostC    chan struct{}
	// Refused, when set, is told of each connection refused as another
	// user's (CheckPeer).
	Refused func(error)
	// lists is what the holder answers itself (hold_cache.go).
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

// Methods an invocation of mcpc session sends the holder itself.
const (
	HolderStop   = "mcpc/session/stop"   // end the session
	HolderStatus = "mcpc/session/status" // HolderStatusResult
)

// HolderStatusResult is what the holder answers HolderStatus with.
type HolderStatusResult struct {
	Requests int64  `json:"requests"` // requests passed on to the server
	IdleLeft string `json:"idleLeft"` // until the idle bound ends it; "" without one
	Attached int    `json:"attached"` // invocations attached now (this one among them)
	// Busy says every slot is taken: the question was answered while it
	// waited for one (lobby), and an invocation's waits too.
	Busy bool `json:"busy,omitempty"`
}

// status is the holder's answer to HolderStatus.
func (h *Holder) status(busy bool) json.RawMessage {
	h.mu.Lock()
	st := HolderStatusResult{Requests: h.served, Attached: len(h.conns), Busy: busy}
	if h.idle > 0 {
		st.IdleLeft = max(h.idle-time.Since(h.last), 0).Round(time.Second).String()
	}
	h.mu.Unlock()
	res, _ := json.Marshal(st)
	return res
}

// route is where the answer to one request goes.
type route struct {
	a     *attach
	id    jsonrpc.ID      // the invocation's own
	token json.RawMessage // the invocation's progress token; nil: none
	htok  string          // the holder's, in its place
	// cancel ends the request's relay over HTTP (its stream); nil on stdio.
	cancel context.CancelFunc
}

// asked is a request of the server's and the invocation it went to.
type asked struct {
	a  *attach
	id jsonrpc.ID
}

// attach is one invocation's connection.
type attach struct {
	conn net.Conn
	out  chan jsonrpc.Message
	done chan struct{}
	once sync.Once
	ids  map[string]string // the invocation's ids (IDKey) to the holder's
	// queued counts messages sent and not yet written (see flush).
	queued atomic.Int64
	// notes counts the droppable notifications queued; dropped those
	// dropped since the last note of it (hold_drop.go).
	notes   atomic.Int64
	dropped dropCount
}

// maxAttached bounds the invocations attached at once: each holds
// goroutines and buffers. A connection takes a slot once it has spoken
// (sent its first byte): one past it waits for a slot (its connect
// timeout bounds the wait), rather than growing the holder without bound.
const maxAttached = 256

// firstMessageWait is how long a connection may stay silent before its
// first byte, and then take to send its first message once it has a
// slot: an invocation sends its handshake at once, and one that sends
// nothing must hold nothing for long.
const firstMessageWait = 2 * time.Second

// attachQueue bounds what waits to be written to one invocation: one
// that stops reading is dropped, not buffered for. Log messages and
// progress take at most attachNotes of it (hold_drop.go).
const attachQueue = 1024

// attachWriteWait bounds how long a write to an invocation may make no
// progress: one that reads nothing for that long is let go.
const attachWriteWait = 30 * time.Second

// stdinWriteWait bounds one write to a stdio server's stdin. A server that
// stops reading it fills the pipe; the writes of every invocation would
// then wait behind the first for good. A write cut off midway leaves a
// partial message in the pipe, so the server cannot be talked to again:
// the session ends, as at the server's exit.
const stdinWriteWait = 30 * time.Second

// NewHolder makes a holder of s, a session just connected to a stdio
// or Streamable HTTP server: from now on every message from its server
// goes to the holder's routes.
func NewHolder(s *Session) (*Holder, error) {
	if s.proc == nil && (s.http == nil || s.sse) {
		return nil, ErrNotHeld
	}
	h := &Holder{s: s, calls: map[string]*route{}, progress: map[string]*route{}, asked: map[string]asked{}, tasks: map[string]*attach{},
		conns: map[*attach]bool{}, last: time.Now(), ping: make(chan struct{}, 1), stop: make(chan struct{}),
		lostC: make(chan struct{}), lists: newHeldLists(s.maxMessage), maxAttached: maxAttached, maxSilent: maxSilent, firstWait: firstMessageWait, WriteWait: stdinWriteWait}
	h.gone = h.lostC
	if s.proc != nil {
		h.gone = s.proc.Done()
	}
	if r := s.wire.Results("initialize"); len(r) > 0 {
		h.init = r[len(r)-1]
	}
	s.wire.mu.Lock()
	h.discover = s.wire.lastDiscover
	s.wire.mu.Unlock()
	if d := s.wire.Results("server/discover"); h.discover == nil && len(d) > 0 {
		h.discover = d[len(d)-1] // replayed from the era memo
	}
	s.wire.tap.Divert(h.fromServer)
	s.wire.tap.Unreadable(h.unreadable)
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
func HolderInput() *Input {
	return &Input{Elicit: func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}}
}

// ErrNotHeld is NewHolder's refusal of a session it cannot hold: one
// over the 2024-11-05 HTTP+SSE transport, whose answers all come on the
// one stream the SDK reads.
var ErrNotHeld = errors.New("a session holds a stdio or Streamable HTTP server; HTTP+SSE (2024-11-05) is not held")

// ServerPID is the held server's process id; 0 for an HTTP server.
func (h *Holder) ServerPID() int {
	if h.s.proc == nil {
		return 0
	}
	return h.s.proc.PID()
}

// send passes msg on to the server beside the holder's own SDK session:
// written to a stdio server's stdin, posted to an HTTP server (relay).
func (h *Holder) send(ctx context.Context, msg jsonrpc.Message) error {
	if h.s.secrets != nil {
		// What a relay sends (a DPoP proof, a refreshed token) joins the
		// holder's secrets, as a one-shot's requests join its own.
		ctx = redact.NewContext(ctx, h.s.secrets)
	}
	if h.s.http == nil {
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
		why := fmt.Sprintf("%s stopped reading its stdin: a message to it was not taken within %s, so the session ended and the server was stopped", h.s.Label, h.WriteWait)
		if h.Log != nil {
			h.Log(why)
		}
		h.end(why)
	})
	defer stall.Stop()
	return h.s.wire.tap.Side.Send(ctx, msg)
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
	if h.s.proc == nil {
		return h.lost
	}
	if why := h.framingBroken(); why != "" {
		return why
	}
	msg := "server " + h.s.proc.ExitStatus()
	if !strings.HasPrefix(h.s.proc.ExitStatus(), "killed") {
		msg = "server exited with " + h.s.proc.ExitStatus()
	}
	if lines := h.s.proc.StderrTail(); len(lines) > 0 {
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

func (a *attach) close() {
	a.once.Do(func() {
		close(a.done)
		a.conn.Close()
	})
}

// flush waits up to d for what was sent to be written: the answer to a
// stop request reaches its invocation before the holder lets go.
func (a *attach) flush(d time.Duration) {
	for deadline := time.Now().Add(d); a.queued.Load() > 0 && time.Now().Before(deadline); {
		select {
		case <-a.done:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (a *attach) writeLoop() {
	for {
		select {
		case msg := <-a.out:
			err := a.write(msg)
			if droppable(msg) {
				a.notes.Add(-1)
			}
			if err == nil && len(a.out) == 0 {
				// All written: what was dropped since is told now.
				if note := a.dropped.take(); note != nil {
					err = a.write(note)
				}
			}
			a.queued.Add(-1)
			if err != nil {
				a.close()
				return
			}
		case <-a.done:
			return
		}
	}
}

// write writes msg to the invocation, within attachWriteWait of progress
// for each part: a large answer to a slow reader is not cut off.
func (a *attach) write(msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	for p := append(data, '\n'); len(p) > 0; {
		a.conn.SetWriteDeadline(time.Now().Add(attachWriteWait))
		n, err := a.conn.Write(p[:min(len(p), 64<<10)])
		if err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

// serveConn reads one invocation's messages until it goes away.
func (h *Holder) serveConn(c net.Conn) {
	a := &attach{conn: c, out: make(chan jsonrpc.Message, attachQueue), done: make(chan struct{}), ids: map[string]string{}}
	h.mu.Lock()
	h.conns[a] = true
	h.mu.Unlock()
	go a.writeLoop()
	r := transport.NewMessageReader(c, int(h.s.maxMessage))
	c.SetReadDeadline(time.Now().Add(h.firstWait))
	for first := true; ; first = false {
		msgs, err := r.Read()
		if err != nil {
			break
		}
		if first {
			c.SetReadDeadline(time.Time{}) // then it may wait as long as it likes
		}
		for _, m := range msgs {
			h.fromInvocation(a, m)
		}
	}
	a.close()
	h.detach(a)
}

// detach forgets a gone invocation: its requests are cancelled on the
// server, the server's questions to it answered with an error.
func (h *Holder) detach(a *attach) {
	h.mu.Lock()
	delete(h.conns, a)
	var cancel []string
	var relays []context.CancelFunc
	for _, hid := range a.ids {
		if r := h.calls[hid]; r != nil {
			cancel = append(cancel, hid)
			relays = append(relays, r.cancel)
			h.forget(hid, r)
		}
	}
	for id, owner := range h.tasks {
		if owner == a {
			delete(h.tasks, id)
		}
	}
	var unanswered []jsonrpc.ID
	for key, q := range h.asked {
		if q.a == a {
			unanswered = append(unanswered, q.id)
			delete(h.asked, key)
		}
	}
	h.mu.Unlock()
	ctx := context.Background()
	for i, hid := range cancel {
		if !h.streamCancels() {
			params, _ := json.Marshal(map[string]any{"requestId": hid, "reason": "the invocation went away"})
			h.send(ctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: params})
		}
		if relays[i] != nil {
			relays[i]()
		}
	}
	for _, id := range unanswered {
		h.send(ctx, &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the invocation asked went away"}})
	}
	// Its requests ended now: the idle bound counts from here. An
	// invocation that had none in flight (a status probe, a connection
	// that sent nothing) is no use of the server and does not keep the
	// session from idling out.
	if len(cancel) > 0 {
		h.touch()
	}
}

// forget drops a routed request; h.mu is held. The last one in flight
// ending starts the idle bound again (Serve's loop sleeps while any runs).
func (h *Holder) forget(hid string, r *route) {
	delete(h.calls, hid)
	if len(h.calls) == 0 {
		h.last = time.Now()
		h.wake()
	}
	// Only if the id is still this request's: an invocation that sent
	// two requests with one id has the later one there, which must stay
	// cancellable (and be forgotten when it is answered).
	if key := transport.IDKey(r.id); r.a.ids[key] == hid {
		delete(r.a.ids, key)
	}
	if r.htok != "" {
		delete(h.progress, r.htok)
	}
	if r.cancel != nil {
		r.cancel()
	}
}

// fromInvocation routes one message an invocation sent.
func (h *Holder) fromInvocation(a *attach, msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.ID.IsValid() {
			h.invocationNotification(a, m)
			return
		}
		h.invocationRequest(a, m)
	case *jsonrpc.Response:
		h.invocationAnswer(a, m)
	}
}

// invocationAnswer passes on an answer to a question of the server's,
// from the invocation asked only. Another's, with the question's id (a
// script's mistake, or a client of the same user forging it), is dropped
// and the question left to the one asked: taken, it would have ended the
// question, and the real answer would have found none to answer.
func (h *Holder) invocationAnswer(a *attach, m *jsonrpc.Response) {
	key := transport.IDKey(m.ID)
	h.mu.Lock()
	q, ok := h.asked[key]
	if q.a == a {
		delete(h.asked, key)
	}
	h.mu.Unlock()
	switch {
	case ok && q.a == a:
		h.send(context.Background(), m)
	case ok:
		h.log("an answer to the server's question %s came from an invocation it was not asked of: it was dropped", shownID(m.ID))
	default:
		h.log("an answer to %s came, which names no question of the server's in flight: it was dropped", shownID(m.ID))
	}
}

// log tells the holder's log (Log) what it has to say.
func (h *Holder) log(format string, args ...any) {
	if h.Log != nil {
		h.Log(fmt.Sprintf(format, args...))
	}
}

// shownID is a JSON-RPC id as a log line shows it: as JSON, cut short (an
// invocation's id may be as long as a message).
func shownID(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	return textsafe.Clip(strings.ToValidUTF8(string(b[:min(len(b), 256)]), ""), 80)
}

func (h *Holder) invocationRequest(a *attach, m *jsonrpc.Request) {
	if m.Method == "initialize" || m.Method == "server/discover" {
		// An invocation's handshake, answered here, is its first request:
		// the idle bound counts from it, so that the session is not let go
		// between it and the call it comes for.
		h.touch()
	}
	switch {
	case m.Method == "initialize" && h.init != nil:
		a.send(&jsonrpc.Response{ID: m.ID, Result: h.init})
		return
	case m.Method == "initialize":
		a.send(&jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "the held server speaks 2026-07-28: no initialize"}})
		return
	case m.Method == "server/discover" && h.discover != nil && !transport.OwnID(m.ID):
		a.send(&jsonrpc.Response{ID: m.ID, Result: h.discover})
		return
	case m.Method == HolderStop:
		a.send(&jsonrpc.Response{ID: m.ID, Result: json.RawMessage("{}")})
		h.stopOnce.Do(func() { close(h.stop) })
		return
	case h.answerHeld(a, m):
		return
	case m.Method == HolderStatus:
		a.send(&jsonrpc.Response{ID: m.ID, Result: h.status(false)})
		return
	}
	h.mu.Lock()
	h.seq++
	hid := fmt.Sprintf("h-%d", h.seq)
	r := &route{a: a, id: m.ID}
	if tok := rawmsg.View(m.Params).Get("_meta.progressToken"); tok.Exists() {
		r.token, r.htok = json.RawMessage(tok.Raw), fmt.Sprintf("hp-%d", h.seq)
		if p, err := withMeta(m.Params, map[string]string{"progressToken": r.htok}); err == nil {
			h.progress[r.htok] = r
			m = &jsonrpc.Request{Method: m.Method, Params: p}
		} else {
			r.token, r.htok = nil, ""
		}
	}
	id, _ := jsonrpc.MakeID(hid)
	out := &jsonrpc.Request{ID: id, Method: m.Method, Params: m.Params}
	if task := rawmsg.View(m.Params).Get("taskId"); strings.HasPrefix(m.Method, "tasks/") && task.Type == gjson.String {
		// The key outlives the message it was read from.
		h.tasks[strings.Clone(task.Str)] = a // following a task it did not start (mcpc task)
	}
	h.calls[hid] = r
	a.ids[transport.IDKey(r.id)] = hid
	h.served++
	h.last = time.Now()
	h.mu.Unlock()
	h.touch()
	h.lists.sent(hid, m)
	if err := h.send(context.Background(), out); err != nil {
		// The server is gone. No answer: an error here would read as the
		// server's refusal. The holder is ending; it records why, then
		// lets the invocation go, which then names the session's end.
		h.mu.Lock()
		h.forget(hid, r)
		h.mu.Unlock()
	}
}

func (h *Holder) invocationNotification(a *attach, m *jsonrpc.Request) {
	switch m.Method {
	case "notifications/initialized":
		return // the server was initialized once, by the holder
	case "notifications/cancelled":
		req := rawmsg.View(m.Params).Get("requestId")
		id, err := jsonrpc.MakeID(req.Value())
		if !req.Exists() || err != nil {
			return
		}
		h.mu.Lock()
		hid, ok := a.ids[transport.IDKey(id)]
		var relay context.CancelFunc
		if r := h.calls[hid]; ok && r != nil {
			relay = r.cancel
		}
		h.mu.Unlock()
		if !ok {
			return
		}
		if h.streamCancels() {
			// The request's stream is closed: that is the cancellation.
			if relay != nil {
				relay()
			}
			return
		}
		params, err := setField(m.Params, "requestId", hid)
		if err != nil {
			return
		}
		m = &jsonrpc.Request{Method: m.Method, Params: params}
	}
	h.send(context.Background(), m)
}

// fromServer routes one message from the server; it runs on the
// connection's reader and never blocks.
func (h *Holder) fromServer(msg jsonrpc.Message) bool {
	switch m := msg.(type) {
	case *jsonrpc.Response:
		key, ok := m.ID.Raw().(string)
		if !ok {
			return false // the SDK's own
		}
		if h.lists.answered(key, m) {
			return true
		}
		h.mu.Lock()
		r := h.calls[key]
		if r != nil {
			h.forget(key, r)
			h.last = time.Now()
			// A task created: its questions are this invocation's.
			if task := rawmsg.View(m.Result).Get("task.taskId"); task.Type == gjson.String && h.conns[r.a] {
				h.tasks[strings.Clone(task.Str)] = r.a
			}
		}
		h.mu.Unlock()
		if r == nil {
			return false
		}
		r.a.send(&jsonrpc.Response{ID: r.id, Result: m.Result, Error: h.redacted(unforged(m.Error))})
		return true
	case *jsonrpc.Request:
		if m.ID.IsValid() {
			h.serverRequest(m)
		} else {
			h.serverNotification(m)
		}
		return true
	}
	return false
}

func (h *Holder) serverRequest(m *jsonrpc.Request) {
	if m.Method == "ping" {
		go h.send(context.Background(), &jsonrpc.Response{ID: m.ID, Result: json.RawMessage("{}")})
		return
	}
	// The question is shown on the invocation's stderr, whose redaction
	// does not know the holder's secrets (a refreshed token, a DPoP proof).
	params, clean := h.redactedJSON(m.Params)
	h.mu.Lock()
	to, busy := h.askee(m)
	if busy == 1 && clean {
		h.asked[transport.IDKey(m.ID)] = asked{to, m.ID}
	}
	h.mu.Unlock()
	refuse := ""
	switch {
	case !clean:
		refuse = "mcpc session: the question cannot be passed on with the session's secrets hidden"
	case busy == 0:
		refuse = "no request of a client is in flight to ask this under"
	case busy > 1:
		refuse = fmt.Sprintf("mcpc session: %d invocations have requests in flight and the question does not say whose request it is for; "+
			"it is not guessed (make calls that ask one at a time, or use --no-session)", busy)
	}
	if refuse != "" {
		go h.send(context.Background(), &jsonrpc.Response{ID: m.ID,
			Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: refuse}})
		return
	}
	c := *m
	c.Params = params
	to.send(&c)
}

// askee is the invocation a request of the server's goes to: the owner
// of the task it names, else the one invocation with requests in flight.
// busy is how many could be asked (more than one: none is guessed). h.mu
// is held.
func (h *Holder) askee(m *jsonrpc.Request) (to *attach, busy int) {
	task := rawmsg.View(m.Params).Get("_meta." + gjson.Escape(relatedTaskKey) + ".taskId")
	if owner := h.tasks[task.Str]; task.Type == gjson.String && owner != nil && h.conns[owner] {
		return owner, 1
	}
	for a := range h.conns {
		if len(a.ids) > 0 {
			to, busy = a, busy+1
		}
	}
	return to, busy
}

func (h *Holder) serverNotification(m *jsonrpc.Request) {
	if h.lists.notified(m) {
		return
	}
	if m.Method == HolderDropped {
		return // the holder's own note: a server does not speak for it
	}
	switch m.Method {
	case "notifications/progress":
		tok := rawmsg.View(m.Params).Get("progressToken")
		h.mu.Lock()
		r := h.progress[tok.String()]
		h.mu.Unlock()
		if r == nil || tok.Type != gjson.String {
			return
		}
		params, err := setField(m.Params, "progressToken", r.token)
		if err != nil {
			return
		}
		if params, ok := h.redactedJSON(params); ok {
			r.a.send(&jsonrpc.Request{Method: m.Method, Params: params})
		}
		return
	case "notifications/cancelled":
		// The server gave up a question it asked: tell the one asked.
		key := idKeyOf(rawmsg.View(m.Params).Get("requestId"))
		h.mu.Lock()
		q := h.asked[key]
		delete(h.asked, key)
		h.mu.Unlock()
		if params, ok := h.redactedJSON(m.Params); q.a != nil && ok {
			c := *m
			c.Params = params
			q.a.send(&c)
		}
		return
	}
	// A log message is shown on the invocation's stderr, whose redaction
	// does not know the holder's secrets.
	params, ok := h.redactedJSON(m.Params)
	if !ok {
		return
	}
	c := *m
	c.Params = params
	for _, a := range h.attached() {
		a.send(&c)
	}
}

// attached is every invocation attached now.
func (h *Holder) attached() []*attach {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Collect(maps.Keys(h.conns))
}

// setField returns params with the top-level key set to v.
func setField(params json.RawMessage, key string, v any) (json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(params, &top); err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	top[key] = b
	return json.Marshal(top)
}

// idKeyOf is the transport.IDKey of a JSON-RPC id read raw.
func idKeyOf(r gjson.Result) string {
	id, err := jsonrpc.MakeID(r.Value())
	if err != nil {
		return ""
	}
	return transport.IDKey(id)
}
