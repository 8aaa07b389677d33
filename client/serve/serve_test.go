package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/internal/redact"
)

func id(t *testing.T, v any) jsonrpc.ID {
	t.Helper()
	if n, ok := v.(int); ok {
		v = float64(n)
	}
	jid, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return jid
}

func request(t *testing.T, reqID any, method, params string) *jsonrpc.Request {
	t.Helper()
	r := &jsonrpc.Request{Method: method, Params: json.RawMessage(params)}
	if reqID != nil {
		r.ID = id(t, reqID)
	}
	return r
}

func TestEraOfFirst(t *testing.T) {
	meta := func(v string) string {
		return `{"_meta":{"io.modelcontextprotocol/protocolVersion":"` + v + `"}}`
	}
	notice := request(t, nil, "notifications/initialized", `{}`)
	answer := &jsonrpc.Response{ID: id(t, 1), Result: json.RawMessage(`{}`)}
	for _, c := range []struct {
		name string
		msgs []jsonrpc.Message
		want Era
	}{
		{"initialize", []jsonrpc.Message{request(t, 1, "initialize", `{"protocolVersion":"2026-07-28"}`)}, Legacy},
		{"server/discover", []jsonrpc.Message{request(t, 1, "server/discover", `{}`)}, Modern},
		{"a 2026-07-28 request", []jsonrpc.Message{request(t, 1, "tools/call", meta("2026-07-28"))}, Modern},
		{"a later revision", []jsonrpc.Message{request(t, 1, "tools/list", meta("2027-01-01"))}, Modern},
		{"a 2025 revision in _meta", []jsonrpc.Message{request(t, 1, "tools/list", meta("2025-06-18"))}, Legacy},
		{"a revision that is no string", []jsonrpc.Message{request(t, 1, "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}`)}, Legacy},
		{"a request saying nothing", []jsonrpc.Message{request(t, 1, "tools/list", `{}`)}, Legacy},
		{"no params", []jsonrpc.Message{request(t, 1, "ping", ``)}, Legacy},
		// A batch is read past what says nothing: notifications,
		// answers, and requests without _meta fall through.
		{"a batch led by a notification", []jsonrpc.Message{notice, answer, request(t, 2, "server/discover", `{}`)}, Modern},
		{"the first request that says decides", []jsonrpc.Message{request(t, 1, "initialize", `{}`), request(t, 2, "server/discover", `{}`)}, Legacy},
		{"only a notification", []jsonrpc.Message{notice}, Legacy},
		{"nothing", nil, Legacy},
	} {
		if got := eraOfFirst(c.msgs); got != c.want {
			t.Errorf("%s: eraOfFirst = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestEraOf(t *testing.T) {
	for v, want := range map[string]Era{"2026-07-28": Modern, "2027-01-01": Modern, "2025-11-25": Legacy, "2024-11-05": Legacy, "": Legacy} {
		if got := EraOf(v); got != want {
			t.Errorf("EraOf(%q) = %v, want %v", v, got, want)
		}
	}
	if Legacy.Protocol() != "2025-11-25" || Modern.Protocol() != "2026-07-28" {
		t.Errorf("Protocol: %s, %s", Legacy.Protocol(), Modern.Protocol())
	}
}

func secrets(values ...string) *redact.Set {
	s := redact.NewSet()
	s.Add(values...)
	return s
}

func TestEncodeRedacts(t *testing.T) {
	set := secrets("tok-secret-1234", `quo"ted-secret`, "987654321")
	for _, c := range []struct {
		name string
		msg  jsonrpc.Message
		want string
	}{
		{"a result's text", &jsonrpc.Response{ID: id(t, 1), Result: json.RawMessage(`{"content":[{"type":"text","text":"say tok-secret-1234!"}]}`)},
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"say <redacted>!"}]}}`},
		// Its JSON form is registered too: the text stays a valid string.
		{"a secret with a quote, escaped", &jsonrpc.Response{ID: id(t, "a"), Result: json.RawMessage(`{"text":"quo\"ted-secret"}`)},
			`{"jsonrpc":"2.0","id":"a","result":{"text":"<redacted>"}}`},
		{"an error's message", &jsonrpc.Response{ID: id(t, 2), Error: &jsonrpc.Error{Code: -32602, Message: `unknown prompt "tok-secret-1234"`}},
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"unknown prompt \"<redacted>\""}}`},
		{"a log notification", request(t, nil, "notifications/message", `{"level":"info","data":{"token":"tok-secret-1234"}}`),
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"token":"<redacted>"}}}`},
		{"a server's request", request(t, "s-1", "elicitation/create", `{"message":"paste tok-secret-1234"}`),
			`{"jsonrpc":"2.0","id":"s-1","method":"elicitation/create","params":{"message":"paste <redacted>"}}`},
		{"nothing to redact", &jsonrpc.Response{ID: id(t, 3), Result: json.RawMessage(`{"n":12345}`)},
			`{"jsonrpc":"2.0","id":3,"result":{"n":12345}}`},
	} {
		got, err := encode(c.msg, set)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
		if strings.Contains(string(got), "secret") || strings.Contains(string(got), "987654321") {
			t.Errorf("%s: a secret passed: %s", c.name, got)
		}
	}
}

// A secret that is not inside a string (a number) leaves text that no
// longer parses: an answer is withheld, an error under its id in its
// place; anything else is dropped.
func TestEncodeWithholds(t *testing.T) {
	set := secrets("987654321")
	got, err := encode(&jsonrpc.Response{ID: id(t, "h-7"), Result: json.RawMessage(`{"structuredContent":{"sum":987654321}}`)}, set)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":"h-7","error":{"code":-32603,"message":"the answer quoted a credential of the server's and was withheld"}}`
	if string(got) != want {
		t.Errorf("withheld answer:\n got %s\nwant %s", got, want)
	}
	for _, m := range []jsonrpc.Message{
		request(t, nil, "notifications/progress", `{"progressToken":"p","progress":987654321}`),
		request(t, "s-2", "sampling/createMessage", `{"maxTokens":987654321}`),
	} {
		got, err := encode(m, set)
		if err != nil || got != nil {
			t.Errorf("%v: encode = %q, %v; want nothing (dropped)", m, got, err)
		}
	}
}

func TestEncodeWithoutSecrets(t *testing.T) {
	m := &jsonrpc.Response{ID: id(t, 1), Result: json.RawMessage(`{"text":"tok-secret-1234"}`)}
	for _, set := range []*redact.Set{nil, redact.NewSet()} {
		got, err := encode(m, set)
		if err != nil || string(got) != `{"jsonrpc":"2.0","id":1,"result":{"text":"tok-secret-1234"}}` {
			t.Errorf("encode = %s, %v", got, err)
		}
	}
}

// holderEnd is the holder's side of a Link: it reads what the link sends
// and writes lines as a holder would. Its goroutines outlive a test that
// fails; the link's end (the test's cleanup) is not an error.
type holderEnd struct {
	t *testing.T
	c net.Conn
	r *json.Decoder
}

func newLinkPair(t *testing.T) (*Link, *holderEnd) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return newLink(a, 1<<20, rules{}), &holderEnd{t: t, c: b, r: json.NewDecoder(b)}
}

func (h *holderEnd) read() map[string]any {
	h.t.Helper()
	var m map[string]any
	if err := h.r.Decode(&m); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
		h.t.Errorf("holder read: %v", err)
	}
	return m
}

func (h *holderEnd) write(lines ...string) {
	h.t.Helper()
	for _, l := range lines {
		if _, err := h.c.Write([]byte(l + "\n")); err != nil {
			return // the link is gone: the test says why
		}
	}
}

// Call returns its own answer; what comes first (a notification, a
// question, another request's answer, a batch's other items) is passed
// to other in order.
func TestLinkCall(t *testing.T) {
	l, h := newLinkPair(t)
	go func() {
		if m := h.read(); m["method"] != "initialize" || m["id"] != "serve-1" {
			t.Errorf("the holder got %v", m)
		}
		h.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`,
			`{"jsonrpc":"2.0","id":"serve-0","result":{}}`,
			`[{"jsonrpc":"2.0","id":"q-1","method":"roots/list"},{"jsonrpc":"2.0","id":"serve-1","result":{"protocolVersion":"2025-11-25"}},{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}]`)
	}()
	var others []string
	res, err := l.Call(context.Background(), request(t, "serve-1", "initialize", `{}`), func(m jsonrpc.Message) {
		data, _ := jsonrpc.EncodeMessage(m)
		others = append(others, string(data))
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Result) != `{"protocolVersion":"2025-11-25"}` {
		t.Errorf("answer %s", res.Result)
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`,
		`{"jsonrpc":"2.0","id":"serve-0","result":{}}`,
		`{"jsonrpc":"2.0","id":"q-1","method":"roots/list"}`,
	}
	if strings.Join(others, "\n") != strings.Join(want, "\n") {
		t.Errorf("passed to other:\n%s\nwant\n%s", strings.Join(others, "\n"), strings.Join(want, "\n"))
	}
	// The batch's item after the answer is the next message received.
	m, err := l.Receive()
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := m.(*jsonrpc.Request); !ok || r.Method != "notifications/tools/list_changed" {
		t.Errorf("next message %#v", m)
	}
}

// With other nil, what comes first is dropped.
func TestLinkCallDrops(t *testing.T) {
	l, h := newLinkPair(t)
	go func() {
		h.read()
		h.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, `{"jsonrpc":"2.0","id":5,"result":{"ok":true}}`)
	}()
	res, err := l.Call(context.Background(), request(t, 5, "ping", `{}`), nil)
	if err != nil || string(res.Result) != `{"ok":true}` {
		t.Fatalf("Call = %v, %v", res, err)
	}
}

// A context that ends while Call waits ends it with the context's cause,
// and the link with it (a holder that never answers cannot keep it).
func TestLinkCallCancelled(t *testing.T) {
	l, h := newLinkPair(t)
	go h.read()
	why := errors.New("serve is stopping")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(50*time.Millisecond, func() { cancel(why) })
	_, err := l.Call(ctx, request(t, 1, "initialize", `{}`), nil)
	if !errors.Is(err, why) {
		t.Fatalf("Call = %v, want %v", err, why)
	}
	if err := l.Send(request(t, 2, "ping", `{}`)); err == nil {
		t.Error("the link still sends after its Call was cancelled")
	}
}

// The holder going away is Call's error, not a hang.
func TestLinkCallHolderGone(t *testing.T) {
	l, h := newLinkPair(t)
	go func() { h.read(); h.c.Close() }()
	if _, err := l.Call(context.Background(), request(t, 1, "initialize", `{}`), nil); err == nil {
		t.Fatal("Call returned no error when the holder closed the link")
	}
}

func TestLinkEmptyBatch(t *testing.T) {
	l, h := newLinkPair(t)
	go h.write(`[]`)
	if _, err := l.Receive(); err == nil {
		t.Fatal("Receive took an empty batch")
	}
}

// --request-timeout: a request its server leaves unanswered is answered
// by serve and cancelled on the server; the server's late answer never
// reaches the client, and the link goes on.
func TestLinkRequestTimeout(t *testing.T) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	l := newLink(a, 1<<20, rules{label: `server "s"`, timeout: 50 * time.Millisecond})
	h := &holderEnd{t: t, c: b, r: json.NewDecoder(b)}
	got := make(chan []map[string]any, 1)
	go func() {
		var seen []map[string]any
		for range 3 { // the call, its cancellation, the second call
			seen = append(seen, h.read())
		}
		h.write(`{"jsonrpc":"2.0","id":1,"result":{"late":true}}`, `{"jsonrpc":"2.0","id":2,"result":{}}`)
		got <- seen
	}()
	id1, _ := jsonrpc.MakeID(float64(1))
	if err := l.Send(&jsonrpc.Request{ID: id1, Method: "tools/call", Params: json.RawMessage(`{"name":"slow"}`)}); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"server \"s\" did not answer tools/call within 50ms (mcpc serve --request-timeout): serve cancelled it"}}`
	if m, err := l.Receive(); err != nil {
		t.Fatal(err)
	} else if data, _ := jsonrpc.EncodeMessage(m); string(data) != want {
		t.Fatalf("serve's answer:\n got %s\nwant %s", data, want)
	}
	id2, _ := jsonrpc.MakeID(float64(2))
	if err := l.Send(&jsonrpc.Request{ID: id2, Method: "ping"}); err != nil {
		t.Fatal(err)
	}
	if m, err := l.Receive(); err != nil {
		t.Fatal(err)
	} else if data, _ := jsonrpc.EncodeMessage(m); string(data) != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("after the late answer: got %s, want the second call's answer", data)
	}
	seen := <-got
	if seen[1]["method"] != "notifications/cancelled" || seen[1]["params"].(map[string]any)["requestId"] != float64(1) {
		t.Errorf("the holder was not told to cancel request 1: %v", seen[1])
	}
}
