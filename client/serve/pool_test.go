package serve

import (
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"testing"
	"time"
)

// A link is kept for the next stateless request only when its requests
// were answered and nothing else of a client's went over it; what the
// holder sends it while it waits reaches no one.
func TestLinkPoolKeeps(t *testing.T) {
	answered := `{"jsonrpc":"2.0","id":1,"result":{}}`
	for _, c := range []struct {
		name, method, params string
		holder               []string
		kept                 bool
	}{
		{"answered", "tools/call", `{"name":"echo"}`, []string{answered}, true},
		{"unanswered", "tools/call", `{"name":"echo"}`, nil, false},
		{"a question of the server's", "tools/call", `{"name":"echo"}`,
			[]string{`{"jsonrpc":"2.0","id":"q","method":"elicitation/create","params":{}}`, answered}, false},
		{"a task made", "tools/call", `{"name":"echo","task":{}}`, []string{`{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t"}}}`}, false},
		{"a task followed", "tasks/get", `{"taskId":"t"}`, []string{answered}, false},
		{"a task answered", "tools/call", `{"name":"echo"}`, []string{`{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t"}}}`}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, h := newLinkPair(t)
			go func() {
				h.read()
				h.write(c.holder...)
			}()
			if err := l.Send(request(t, 1, c.method, c.params)); err != nil {
				t.Fatal(err)
			}
			for range c.holder {
				if _, err := l.Receive(); err != nil {
					t.Fatal(err)
				}
			}
			if !c.kept {
				time.Sleep(20 * time.Millisecond) // an unanswered request stays so
			}
			var p linkPool
			p.put(l)
			if got := p.get(); (got == l) != c.kept {
				t.Errorf("kept: %v, want %v", got == l, c.kept)
			}
		})
	}
}

// What comes while a link waits is dropped; its next request reads its
// own answer first.
func TestLinkPoolDropsWhileIdle(t *testing.T) {
	l, h := newLinkPair(t)
	var p linkPool
	p.put(l)
	h.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"old"}}`)
	time.Sleep(20 * time.Millisecond)
	if p.get() != l {
		t.Fatal("an unused link was not kept")
	}
	go func() {
		h.read()
		h.write(`{"jsonrpc":"2.0","id":2,"result":{"n":2}}`)
	}()
	if err := l.Send(request(t, 2, "tools/call", `{"name":"echo"}`)); err != nil {
		t.Fatal(err)
	}
	m, err := l.Receive()
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := m.(*jsonrpc.Response); !ok || string(r.Result) != `{"n":2}` {
		t.Errorf("first message after the wait: %#v", m)
	}
}
