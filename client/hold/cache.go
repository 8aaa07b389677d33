package hold

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/mcpc-dev/mcpc/client/input"
	"github.com/tidwall/gjson"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/internal/listkind"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// What the holder answers itself, so that an invocation through a session
// costs the requests the call needs and no more. A one-shot call lists
// the tools to check its arguments, and (2025) sets the server's log
// level; through a session both would go to the server on every call,
// though the holder already knows the answer:
//
//   - a list (tools, prompts, resources, resource templates; each page by
//     its params, _meta aside, as the result cache keys them) is answered
//     from the server's last answer to it, for as long as the server tells
//     of its changes: a family is held only when the server promised
//     notifications/…/list_changed for it (a 2025 server's listChanged
//     capability; a 2026-07-28 server's acknowledgement of the holder's
//     subscriptions/listen, on stdio) and is dropped on each such
//     notification. An answer to a list requested before the last change
//     is passed on, never kept. What is kept is the raw result, bounded
//     in all by the server's message bound.
//   - logging/setLevel (2025) is answered when the server was already set
//     to that level or a lower one: what it sends then includes what the
//     invocation asked for, and each invocation filters by its own
//     --log-level.

// heldLists is the holder's memory of those answers.
type heldLists struct {
	mu      sync.Mutex
	max     int             // bytes of entries kept in all
	size    int             // bytes kept now
	watched map[string]bool // families whose changes the server tells
	gen     map[string]int  // changes told, by family
	entries map[string]json.RawMessage
	pending map[string]heldPending // requests passed on, by holder id
	level   string                 // what the server's log level was set to; "" unknown
}

type heldPending struct {
	key, family string
	gen         int
	level       string
}

// heldFamily names the list family of a list method, the family a
// list_changed notification is about.
// Made once, when first read: a holder's start, never mcpc --version.
var heldFamilies = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, k := range listkind.Kinds {
		m[k.Method] = k.Capability
		m["notifications/"+k.Capability+"/list_changed"] = k.Capability
	}
	return m
})

// heldListen is the id of the holder's own subscriptions/listen.
const heldListen = "h-listen"

func newHeldLists(maxBytes int64) *heldLists {
	return &heldLists{max: int(min(maxBytes, int64(conn.MaxMaxMessage))), watched: map[string]bool{}, gen: map[string]int{},
		entries: map[string]json.RawMessage{}, pending: map[string]heldPending{}}
}

// watchCapabilities holds the families whose listChanged a 2025 stdio
// server declared in its initialize result. (Over HTTP its notifications
// come on a standalone stream the server need not offer.)
func (h *Holder) watchCapabilities() {
	if h.s.HTTP() || h.discover != nil {
		return
	}
	l := h.lists
	init := h.init
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range []string{"tools", "prompts", "resources"} {
		if rawmsg.View(init).Get("capabilities." + f + ".listChanged").Bool() {
			l.watched[f] = true
		}
	}
}

// listen subscribes the holder to a 2026-07-28 stdio server's list
// changes (such a server tells them only on a subscriptions/listen
// stream); its acknowledgement says which families are held
// (notified). A server that refuses or ends the stream holds none.
func (h *Holder) listen() {
	if h.s.HTTP() || h.discover == nil {
		return
	}
	want := map[string]bool{}
	for _, f := range []string{"tools", "prompts", "resources"} {
		if rawmsg.View(h.discover).Get("capabilities." + f + ".listChanged").Bool() {
			want[f+"ListChanged"] = true
		}
	}
	if len(want) == 0 {
		return
	}
	params, err := json.Marshal(map[string]any{"_meta": h.s.Envelope(), "notifications": want})
	if err != nil {
		return
	}
	id, _ := jsonrpc.MakeID(heldListen)
	h.send(context.Background(), &jsonrpc.Request{ID: id, Method: "subscriptions/listen", Params: params})
}

// answerHeld answers m from what the holder holds, and says whether it
// did; a request it does not answer is noted to learn from its answer.
func (h *Holder) answerHeld(a *attach, m *jsonrpc.Request) bool {
	res := h.lists.lookup(m)
	if res == nil {
		return false
	}
	h.touch()
	a.send(&jsonrpc.Response{ID: m.ID, Result: res})
	return true
}

func (l *heldLists) lookup(m *jsonrpc.Request) json.RawMessage {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m.Method == "logging/setLevel" {
		// A level mcpc does not know is the server's to judge.
		if lv := rawmsg.View(m.Params).Get("level").String(); l.level != "" && slices.Contains(input.LogLevels, lv) && input.LevelRank(l.level) <= input.LevelRank(lv) {
			return json.RawMessage("{}")
		}
		return nil
	}
	if f := heldFamilies()[m.Method]; f == "" || !l.watched[f] || conn.IsRetry(m.Params) {
		return nil
	}
	return l.entries[m.Method+" "+conn.ParamsKey(m.Params)]
}

// sent notes a request passed on to the server under holder id hid.
func (l *heldLists) sent(hid string, m *jsonrpc.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch f := heldFamilies()[m.Method]; {
	case m.Method == "logging/setLevel":
		if lv := rawmsg.View(m.Params).Get("level").String(); slices.Contains(input.LogLevels, lv) {
			l.pending[hid] = heldPending{level: lv}
		}
	case f != "" && l.watched[f] && !conn.IsRetry(m.Params):
		l.pending[hid] = heldPending{key: m.Method + " " + conn.ParamsKey(m.Params), family: f, gen: l.gen[f]}
	}
}

// answered learns from the server's answer to hid, and says whether the
// answer was the holder's own (its subscription's end).
func (l *heldLists) answered(hid string, m *jsonrpc.Response) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if hid == heldListen {
		// Refused, or the server ended the stream: changes are no longer
		// told, so nothing is held.
		l.watched, l.entries, l.size = map[string]bool{}, map[string]json.RawMessage{}, 0
		return true
	}
	p, ok := l.pending[hid]
	delete(l.pending, hid)
	if !ok || m.Error != nil {
		return false
	}
	switch {
	case p.level != "":
		l.level = p.level
	case p.gen == l.gen[p.family] && l.watched[p.family] && isComplete(m.Result) && len(m.Result) <= l.max:
		if old, ok := l.entries[p.key]; ok {
			l.size -= len(old)
		}
		if l.size+len(m.Result) > l.max {
			// Full: start again rather than choose what to drop.
			l.entries, l.size = map[string]json.RawMessage{}, 0
		}
		l.entries[p.key] = slices.Clone(m.Result)
		l.size += len(m.Result)
	}
	return false
}

// isComplete says a result is final (a 2026-07-28 input_required one
// is an exchange's middle, not the list).
func isComplete(res json.RawMessage) bool {
	rt := rawmsg.View(res).Get("resultType")
	return !rt.Exists() || rt.String() == "complete"
}

// subscriptionKey is the _meta key a 2026-07-28 server tags what it sends
// on a subscriptions/listen stream with: the listen request's id.
var subscriptionKey = "_meta." + gjson.Escape("io.modelcontextprotocol/subscriptionId")

// subscriptionOf is the id of the listen request m came on ("" none).
func subscriptionOf(m *jsonrpc.Request) string {
	return rawmsg.View(m.Params).Get(subscriptionKey).String()
}

// notified learns from a server's notification, and says whether it was
// the holder's own (its subscription's acknowledgement), not to be
// passed on.
func (l *heldLists) notified(m *jsonrpc.Request) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m.Method == "notifications/subscriptions/acknowledged" {
		if id := subscriptionOf(m); id != "" && id != heldListen {
			return false // an invocation's own listen's: routed to it
		}
		for _, f := range []string{"tools", "prompts", "resources"} {
			if rawmsg.View(m.Params).Get("notifications." + f + "ListChanged").Bool() {
				l.watched[f] = true
			}
		}
		return true
	}
	f := heldFamilies()[m.Method]
	if f == "" {
		return false
	}
	l.gen[f]++
	for key := range l.entries {
		if heldFamilies()[methodOfKey(key)] == f {
			l.size -= len(l.entries[key])
			delete(l.entries, key)
		}
	}
	return false
}

// methodOfKey is the method an entry's key begins with.
func methodOfKey(key string) string {
	method, _, _ := strings.Cut(key, " ")
	return method
}
