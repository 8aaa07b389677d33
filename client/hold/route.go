package hold

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpc-dev/mcpc/client/input"

	"github.com/mcpc-dev/mcpc/client/conn"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

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
	case m.Method == holdwire.Stop:
		a.send(&jsonrpc.Response{ID: m.ID, Result: json.RawMessage("{}")})
		h.stopOnce.Do(func() { close(h.stop) })
		return
	case h.answerHeld(a, m):
		return
	case m.Method == holdwire.Status:
		a.send(&jsonrpc.Response{ID: m.ID, Result: h.status(false)})
		return
	}
	h.mu.Lock()
	h.seq++
	hid := fmt.Sprintf("h-%d", h.seq)
	r := &route{a: a, id: m.ID}
	if tok := rawmsg.View(m.Params).Get("_meta.progressToken"); tok.Exists() {
		r.token, r.htok = json.RawMessage(tok.Raw), fmt.Sprintf("hp-%d", h.seq)
		if p, err := conn.WithMeta(m.Params, map[string]string{"progressToken": r.htok}); err == nil {
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
		r.a.send(&jsonrpc.Response{ID: r.id, Result: m.Result, Error: h.redacted(holdwire.Unforged(m.Error))})
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
	task := rawmsg.View(m.Params).Get("_meta." + gjson.Escape(input.RelatedTaskKey) + ".taskId")
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
	if m.Method == holdwire.Dropped {
		return // the holder's own note: a server does not speak for it
	}
	if id := subscriptionOf(m); id != "" && id != heldListen {
		// A list's change told on an invocation's own listen (mcpc
		// watch) may come before the holder's listen tells it: what the
		// holder holds of the list is stale from now on, so that the
		// invocation's next list is the server's.
		h.lists.notified(m)
		h.subscribed(id, m)
		return
	}
	if h.lists.notified(m) {
		return
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

// subscribed passes m, sent on the subscriptions/listen stream of the
// holder's request id, to the invocation whose listen that is, under its
// own id: what it subscribed to is its own (nothing of it reaches the
// others, who did not ask). One whose listen ended gets nothing.
func (h *Holder) subscribed(id string, m *jsonrpc.Request) {
	h.mu.Lock()
	r := h.calls[id]
	h.mu.Unlock()
	if r == nil {
		return
	}
	var meta map[string]json.RawMessage
	json.Unmarshal([]byte(rawmsg.View(m.Params).Get("_meta").Raw), &meta)
	if meta == nil {
		return
	}
	meta["io.modelcontextprotocol/subscriptionId"], _ = json.Marshal(r.id.Raw())
	params, err := setField(m.Params, "_meta", meta)
	if err != nil {
		return
	}
	if params, ok := h.redactedJSON(params); ok {
		r.a.send(&jsonrpc.Request{Method: m.Method, Params: params})
	}
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
