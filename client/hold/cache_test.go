package hold

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func heldRequest(t *testing.T, method, params string) *jsonrpc.Request {
	t.Helper()
	rid, err := jsonrpc.MakeID("i")
	if err != nil {
		t.Fatal(err)
	}
	return &jsonrpc.Request{ID: rid, Method: method, Params: json.RawMessage(params)}
}

// heldAnswer passes a list request through l as the holder does and
// answers it with result.
func heldAnswer(t *testing.T, l *heldLists, hid, method, params, result string) {
	t.Helper()
	l.sent(hid, heldRequest(t, method, params))
	l.answered(hid, &jsonrpc.Response{Result: json.RawMessage(result)})
}

func TestHeldListsBounded(t *testing.T) {
	l := newHeldLists(100)
	l.watched["tools"] = true
	page := func(n int) string { return `{"tools":[],"x":"` + strings.Repeat("a", n) + `"}` }
	for i := range 20 {
		heldAnswer(t, l, fmt.Sprintf("h-%d", i), "tools/list", fmt.Sprintf(`{"cursor":"%d"}`, i), page(40))
		if l.size > l.max {
			t.Fatalf("after %d pages %d bytes kept, over the bound of %d", i+1, l.size, l.max)
		}
	}
	heldAnswer(t, l, "h-big", "tools/list", `{"cursor":"big"}`, page(200))
	if got := l.lookup(heldRequest(t, "tools/list", `{"cursor":"big"}`)); got != nil {
		t.Fatalf("a result over the bound was kept: %s", got)
	}
	if got := l.lookup(heldRequest(t, "tools/list", `{"cursor":"19","_meta":{"traceparent":"x"}}`)); string(got) != page(40) {
		t.Fatalf("the last page, _meta aside: got %s", got)
	}
}

func TestHeldListsChanged(t *testing.T) {
	l := newHeldLists(1 << 20)
	list := heldRequest(t, "tools/list", `{}`)
	// A family the server does not tell changes of is never held.
	heldAnswer(t, l, "h-1", "tools/list", `{}`, `{"tools":[]}`)
	if l.lookup(list) != nil {
		t.Fatal("held a list whose changes the server does not tell")
	}
	l.notified(&jsonrpc.Request{Method: "notifications/subscriptions/acknowledged", Params: json.RawMessage(`{"notifications":{"toolsListChanged":true}}`)})
	heldAnswer(t, l, "h-2", "tools/list", `{}`, `{"tools":[]}`)
	heldAnswer(t, l, "h-3", "prompts/list", `{}`, `{"prompts":[]}`)
	if string(l.lookup(list)) != `{"tools":[]}` || l.lookup(heldRequest(t, "prompts/list", `{}`)) != nil {
		t.Fatal("held other than the acknowledged family")
	}
	// An answer to a list asked before a change is passed on, not kept.
	l.sent("h-4", list)
	l.notified(&jsonrpc.Request{Method: "notifications/tools/list_changed"})
	if l.lookup(list) != nil || l.size != 0 {
		t.Fatal("list_changed left the list held")
	}
	l.answered("h-4", &jsonrpc.Response{Result: json.RawMessage(`{"tools":[{"name":"old"}]}`)})
	if l.lookup(list) != nil {
		t.Fatal("an answer from before the change was kept")
	}
	// An input_required result is no list.
	heldAnswer(t, l, "h-5", "tools/list", `{}`, `{"resultType":"input_required"}`)
	if l.lookup(list) != nil {
		t.Fatal("an input_required result was kept")
	}
}

func TestHeldLogLevel(t *testing.T) {
	l := newHeldLists(1 << 20)
	set := func(level string) *jsonrpc.Request {
		return heldRequest(t, "logging/setLevel", `{"level":"`+level+`"}`)
	}
	if l.lookup(set("warning")) != nil {
		t.Fatal("answered before the server's level was known")
	}
	l.sent("h-1", set("info"))
	l.answered("h-1", &jsonrpc.Response{Result: json.RawMessage(`{}`)})
	for level, held := range map[string]bool{"debug": false, "info": true, "error": true, "loud": false} {
		if got := l.lookup(set(level)) != nil; got != held {
			t.Errorf("level %s after info: answered %v, want %v", level, got, held)
		}
	}
	l.sent("h-2", set("debug"))
	l.answered("h-2", &jsonrpc.Response{Error: &jsonrpc.Error{Code: -32602, Message: "no"}})
	if l.lookup(set("debug")) != nil {
		t.Fatal("a refused level was taken as set")
	}
}
