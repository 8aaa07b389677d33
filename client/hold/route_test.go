package hold

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// routedHolder is a holder's routing state without a server: what
// fromServer and serverRequest read and write.
func routedHolder(as ...*attach) *Holder {
	h := &Holder{calls: map[string]*route{}, progress: map[string]*route{}, asked: map[string]asked{},
		tasks: map[string]*attach{}, conns: map[*attach]bool{}, ping: make(chan struct{}, 1),
		lists: newHeldLists(1 << 20), maxAttached: maxAttached, maxSilent: maxSilent, firstWait: firstMessageWait}
	for _, a := range as {
		h.conns[a] = true
	}
	return h
}

func newAttach() *attach {
	return &attach{out: make(chan jsonrpc.Message, 8), done: make(chan struct{}), ids: map[string]string{}}
}

// inFlight gives a a request in flight on the server under hid.
func inFlight(h *Holder, a *attach, hid string, own any) {
	id := mustID(own)
	h.calls[hid] = &route{a: a, id: id}
	a.ids[hid+"-own"] = hid
}

// A question tied to a task goes to the invocation that owns the task,
// though two invocations have requests in flight (the rule without a
// task refuses it, since either could be meant).
func TestTaskQuestionReachesItsOwner(t *testing.T) {
	owner, other := newAttach(), newAttach()
	h := routedHolder(owner, other)

	// The owner's tools/call is answered with a created task.
	inFlight(h, owner, "h-1", "c-1")
	created := &jsonrpc.Response{ID: mustID("h-1"), Result: json.RawMessage(`{"task":{"taskId":"t-7","status":"working"}}`)}
	if !h.fromServer(created) {
		t.Fatal("the answer was not routed")
	}
	if got := (<-owner.out).(*jsonrpc.Response); got.ID != mustID("c-1") {
		t.Fatalf("the owner got the answer to %v", got.ID)
	}
	// Both now wait on requests of their own (the owner on tasks/result).
	inFlight(h, owner, "h-2", "c-2")
	inFlight(h, other, "h-3", "o-1")

	ask := &jsonrpc.Request{ID: mustID(float64(41)), Method: "elicitation/create",
		Params: json.RawMessage(`{"message":"go on?","requestedSchema":{"type":"object"},"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t-7"}}}`)}
	h.serverRequest(ask)
	select {
	case got := <-owner.out:
		if r, ok := got.(*jsonrpc.Request); !ok || r.Method != "elicitation/create" || r.ID != ask.ID {
			t.Fatalf("the owner got %#v", got)
		}
	default:
		t.Fatal("the task's question did not reach its owner")
	}
	if len(other.out) != 0 {
		t.Fatalf("the other invocation was asked too")
	}
	if q := h.asked[transport.IDKey(ask.ID)]; q.a != owner {
		t.Fatalf("the question is not recorded as the owner's: %#v", h.asked)
	}

	// The other invocation follows the task now (mcpc task result t-7):
	// the task's next question is its.
	h.mu.Lock()
	to, busy := h.askee(ask)
	h.mu.Unlock()
	if to != owner || busy != 1 {
		t.Fatalf("askee = %p, %d", to, busy)
	}
	h.tasks["t-7"] = other
	h.mu.Lock()
	to, _ = h.askee(ask)
	h.mu.Unlock()
	if to != other {
		t.Fatal("the task's new follower was not asked")
	}

	// A task whose owner went away, or that no one owns: the rule
	// without a task (two busy: none guessed).
	delete(h.conns, other)
	h.conns[newAttach()] = true
	for _, params := range []string{
		`{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t-7"}}}`,
		`{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t-unknown"}}}`,
		`{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":7}}}`,
	} {
		h.mu.Lock()
		to, busy := h.askee(&jsonrpc.Request{ID: mustID(float64(42)), Method: "elicitation/create", Params: json.RawMessage(params)})
		h.mu.Unlock()
		if to != owner || busy != 1 {
			t.Errorf("%s: askee = %p (owner %p), %d busy", params, to, owner, busy)
		}
	}
}

// An answer to the server's question is taken only from the invocation
// it was routed to: another's, with the question's id, is dropped and
// logged, and leaves the question to the one asked.
func TestAnswerOnlyFromTheAsked(t *testing.T) {
	asked, other := newAttach(), newAttach()
	h := routedHolder(asked, other)
	var logged []string
	h.Log = func(msg string) { logged = append(logged, msg) }
	inFlight(h, asked, "h-1", "c-1")
	q := &jsonrpc.Request{ID: mustID("q-1"), Method: "elicitation/create", Params: json.RawMessage(`{"message":"name?","requestedSchema":{"type":"object"}}`)}
	h.serverRequest(q)
	if got := <-asked.out; got.(*jsonrpc.Request).ID != q.ID {
		t.Fatalf("the invocation asked got %#v", got)
	}

	// h.s is nil: an answer passed on to the server would panic here.
	h.fromInvocation(other, &jsonrpc.Response{ID: q.ID, Result: json.RawMessage(`{"action":"decline"}`)})
	if got := h.asked[transport.IDKey(q.ID)]; got.a != asked {
		t.Fatalf("another invocation's answer took the question: %#v", h.asked)
	}
	h.fromInvocation(other, &jsonrpc.Response{ID: mustID(float64(9)), Result: json.RawMessage(`{}`)})
	want := []string{
		`an answer to the server's question "q-1" came from an invocation it was not asked of: it was dropped`,
		`an answer to 9 came, which names no question of the server's in flight: it was dropped`,
	}
	if !slices.Equal(logged, want) {
		t.Fatalf("logged %q, want %q", logged, want)
	}
}

// An id shown in the log is cut short: an invocation's may be as long as
// a message.
func TestShownIDBounded(t *testing.T) {
	if got := shownID(mustID(strings.Repeat("é", 1<<20))); textsafe.Width(got) > 80 || !strings.HasPrefix(got, `"éé`) || !strings.HasSuffix(got, "…") {
		t.Fatalf("shownID = %q", got)
	}
}

// Two requests of one invocation with one id: the answer to the first
// leaves the second's mapping (it stays cancellable, and is forgotten
// when answered in turn), rather than deleting it with its own.
func TestForgetKeepsALaterRequestOfTheSameID(t *testing.T) {
	a := newAttach()
	h := routedHolder(a)
	key := transport.IDKey(mustID("dup"))
	first, second := &route{a: a, id: mustID("dup")}, &route{a: a, id: mustID("dup")}
	h.calls["h-1"], a.ids[key] = first, "h-1"
	h.calls["h-2"], a.ids[key] = second, "h-2"
	h.forget("h-1", first)
	if a.ids[key] != "h-2" {
		t.Fatalf("after the first was answered, the id maps to %q, want h-2", a.ids[key])
	}
	h.forget("h-2", second)
	if _, ok := a.ids[key]; ok || len(h.calls) != 0 {
		t.Errorf("after both: ids %v, calls %v", a.ids, h.calls)
	}
}

// What a 2026-07-28 server sends on an invocation's own
// subscriptions/listen stream (its acknowledgement first) reaches that
// invocation alone, under its own id; the holder's own listen's
// acknowledgement is the holder's.
func TestListenStreamRoutedToItsInvocation(t *testing.T) {
	mine, other := newAttach(), newAttach()
	h := routedHolder(mine, other)
	h.calls["h-5"] = &route{a: mine, id: mustID("sub-1")}
	ack := func(id string) *jsonrpc.Request {
		return &jsonrpc.Request{Method: "notifications/subscriptions/acknowledged",
			Params: json.RawMessage(`{"_meta":{"io.modelcontextprotocol/subscriptionId":"` + id + `"},"notifications":{"toolsListChanged":true}}`)}
	}
	h.serverNotification(ack("h-5"))
	h.serverNotification(&jsonrpc.Request{Method: "notifications/resources/updated",
		Params: json.RawMessage(`{"_meta":{"io.modelcontextprotocol/subscriptionId":"h-5"},"uri":"file:///a"}`)})
	h.serverNotification(ack(heldListen))
	h.serverNotification(ack("h-9")) // a listen that ended
	for _, want := range []string{
		`{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"},"notifications":{"toolsListChanged":true}}`,
		`{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"},"uri":"file:///a"}`,
	} {
		select {
		case m := <-mine.out:
			if got := string(m.(*jsonrpc.Request).Params); got != want {
				t.Errorf("the listening invocation got %s, want %s", got, want)
			}
		default:
			t.Fatalf("the listening invocation got nothing, want %s", want)
		}
	}
	if len(mine.out) != 0 || len(other.out) != 0 {
		t.Errorf("left over: %d for the listener, %d for the other", len(mine.out), len(other.out))
	}
	if !h.lists.watched["tools"] {
		t.Error("the holder's own acknowledgement was not learned from")
	}
}
