package serve

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// recording is a recording's text from its lines after the first.
func recording(lines ...string) *strings.Reader {
	return strings.NewReader(`{"mcpc-record":1}` + "\n" + strings.Join(lines, "\n") + "\n")
}

func readTestReplay(t *testing.T, lines ...string) *Replay {
	t.Helper()
	p, err := ReadReplay(context.Background(), recording(lines...), "r.jsonl", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The pairing: an answer joins its request's exchange by id, progress the
// exchange its token names, a question the newest open one; HTTP heads
// and the client's notifications are skipped; what comes when nothing is
// open is dropped; an omitted answer still ends its exchange.
func TestReplayPairs(t *testing.T) {
	p := readTestReplay(t,
		`{"conn":1,"dir":"out","transport":"http","http":{"method":"POST"},"msg":{"jsonrpc":"2.0","id":1,"method":"a","params":{"_meta":{"progressToken":"p1"}}}}`,
		`{"conn":1,"dir":"out","msg":{"jsonrpc":"2.0","id":2,"method":"b"}}`,
		`{"conn":1,"dir":"in","transport":"http","http":{"status":200}}`,
		`{"conn":1,"dir":"in","msg":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}}`,
		`{"conn":1,"dir":"in","msg":{"jsonrpc":"2.0","method":"notifications/message","params":{}}}`,
		`{"conn":1,"dir":"in","msg":{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{}}}`,
		`{"conn":1,"dir":"out","msg":{"jsonrpc":"2.0","id":9,"result":{"action":"decline"}}}`,
		`{"conn":1,"dir":"out","msg":{"jsonrpc":"2.0","method":"notifications/cancelled"}}`,
		`{"conn":1,"dir":"in","msg":{"jsonrpc":"2.0","id":2,"result":{}}}`,
		`{"conn":1,"dir":"in","omitted":{"bytes":99,"id":1}}`,
		`{"conn":1,"dir":"in","msg":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}`,
		`{"conn":2,"dir":"out","local":true,"msg":[{"jsonrpc":"2.0","id":1,"method":"c"}]}`,
	)
	if len(p.exchanges) != 3 {
		t.Fatalf("%d exchanges, want 3", len(p.exchanges))
	}
	kinds := func(ex *exchange) (out []playKind) {
		for _, m := range ex.msgs {
			out = append(out, m.kind)
		}
		return out
	}
	a, b, c := p.exchanges[0], p.exchanges[1], p.exchanges[2]
	if got := kinds(a); len(got) != 2 || got[0] != progressMsg || got[1] != answerMsg || a.msgs[1].more.omitted != 99 || !a.done {
		t.Errorf("a: %v", got)
	}
	if got := kinds(b); len(got) != 3 || got[0] != notifyMsg || got[1] != askMsg || got[2] != answerMsg || !b.done {
		t.Errorf("b: %v", got)
	}
	if b.msgs[1].more.asked == nil {
		t.Error("b's question has no recorded answer")
	}
	if raw, err := p.message(b.msgs[0]); err != nil || !strings.Contains(string(raw), "notifications/message") {
		t.Errorf("b's first message: %s %v", raw, err)
	}
	if c.method != "c" || c.conn != 2 || c.done || len(c.msgs) != 0 {
		t.Errorf("c: %+v", c)
	}
}

// Matching ignores the id, the progress token, trace context and the
// client's version, and nothing else.
func TestReplayMatchKey(t *testing.T) {
	for _, c := range []struct{ method, a, b string }{
		{"initialize", `{"clientInfo":{"name":"mcpc","version":"1"},"_meta":{"progressToken":1,"traceparent":"x"},"a":1.0}`, `{"a":1.0,"clientInfo":{"version":"2","name":"mcpc"}}`},
		{"x", `{"s":"\u00e9","l":[{"b":1,"a":2}]}`, `{"l":[{"a":2,"b":1}],"s":"é"}`},
		{"x", ``, `{}`},
		{"x", `null`, `{"_meta":{"tracestate":"t","baggage":"b"}}`},
		{"x", `{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c","version":"9"}}}`, `{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c"}}}`},
	} {
		if ka, kb := matchKey(c.method, []byte(c.a)), matchKey(c.method, []byte(c.b)); ka != kb {
			t.Errorf("%s %s: %s != %s", c.method, c.a, ka, kb)
		}
	}
	for _, c := range []struct{ method, a, b string }{
		{"initialize", `{"a":1}`, `{"a":1.0}`},
		{"x", `{"clientInfo":{"version":"1"}}`, `{"clientInfo":{"version":"2"}}`}, // only initialize's
		{"x", `{"_meta":{"io.modelcontextprotocol/logLevel":"info"}}`, `{}`},
		{"x", `{"l":[1,2]}`, `{"l":[2,1]}`},
	} {
		if ka, kb := matchKey(c.method, []byte(c.a)), matchKey(c.method, []byte(c.b)); ka == kb {
			t.Errorf("%s %s and %s match: %s", c.method, c.a, c.b, ka)
		}
	}
}

func TestReplayOrders(t *testing.T) {
	lines := []string{
		`{"conn":1,"dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"t"}}}`,
		`{"conn":1,"dir":"in","msg":{"jsonrpc":"2.0","id":1,"result":{"n":1}}}`,
		`{"conn":1,"dir":"out","msg":{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t"}}}`,
		`{"conn":1,"dir":"in","msg":{"jsonrpc":"2.0","id":2,"result":{"n":2}}}`,
		`{"conn":1,"dir":"out","msg":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{"a":1,"b":{"c":[1,2]}}}}}`,
		`{"conn":1,"dir":"in","msg":{"jsonrpc":"2.0","id":3,"result":{}}}`,
	}
	find := func(p *Replay, method, params string) (*exchange, *jsonrpc.Error) {
		return p.find(method, json.RawMessage(params))
	}
	p := readTestReplay(t, lines...)
	get := `{"taskId":"t"}`
	for i, want := range []int{0, 1, 1, 1} { // the last used match again
		if ex, err := find(p, "tasks/get", get); err != nil || ex != p.exchanges[want] {
			t.Errorf("poll %d: %v %v", i, ex, err)
		}
	}
	_, err := find(p, "tools/call", `{"name":"x","arguments":{"a":1,"b":{"c":[1,3]}}}`)
	if err == nil || err.Code != jsonrpc.CodeInvalidParams || !strings.HasSuffix(err.Message, "the closest recorded request (line 6) differs in params.arguments.b.c[1]") {
		t.Errorf("%v", err)
	}
	if _, err := find(p, "resources/read", `{}`); err == nil || err.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("%v", err)
	}
	if p.Unmatched() != 2 {
		t.Errorf("%d unmatched, want 2", p.Unmatched())
	}

	p = readTestReplay(t, lines...)
	p.Strict = true
	if _, err := find(p, "tools/call", `{"name":"x","arguments":{"a":1,"b":{"c":[1,2]}}}`); err == nil ||
		!strings.HasSuffix(err.Message, "--order strict: the next recorded request (line 2) is tasks/get") {
		t.Errorf("%v", err)
	}
	for i, want := range []int{0, 0, 1, 1} { // a repeat of the one just answered
		if ex, err := find(p, "tasks/get", get); err != nil || ex != p.exchanges[want] {
			t.Errorf("strict poll %d: %v %v", i, ex, err)
		}
		if i == 1 {
			p.last = nil // the next is the next recorded one
		}
	}
}

func TestWithProgressToken(t *testing.T) {
	got := withProgressToken(json.RawMessage(`{"progressToken":7,"progress":1}`), `"tok"`)
	if string(got) != `{"progressToken":"tok","progress":1}` {
		t.Errorf("%s", got)
	}
	if got := withProgressToken(json.RawMessage(`{"progress":1}`), `"tok"`); string(got) != `{"progress":1}` {
		t.Errorf("%s", got)
	}
}
