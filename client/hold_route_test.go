package client

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/transport"
)

// routedHolder is a holder's routing state without a server: what
// fromServer and serverRequest read and write.
func routedHolder(as ...*attach) *Holder {
	h := &Holder{calls: map[string]*route{}, progress: map[string]*route{}, asked: map[string]asked{},
		tasks: map[string]*attach{}, conns: map[*attach]bool{}, ping: make(chan struct{}, 1),
		lists: newHeldLists(1 << 20), maxAttached: maxAttached, firstWait: firstMessageWait}
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
