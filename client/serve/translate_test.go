package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// translated is a translation for a client of era over a link whose
// holder answers each message with answer (nil: no answer); what the
// holder read comes on got, encoded.
func translated(t *testing.T, era Era, answer func(m map[string]any) []string, timeout ...time.Duration) (*translation, chan string) {
	t.Helper()
	l, h := newLinkPair(t)
	got := make(chan string, 64)
	go func() {
		for {
			m := h.read()
			if m == nil {
				return
			}
			b, _ := json.Marshal(m)
			got <- string(b)
			h.write(answer(m)...)
		}
	}()
	tr := newTranslation(l, era, `server "s"`, append(timeout, 0)[0], true)
	t.Cleanup(func() { tr.Close() })
	return tr, got
}

// next is the next message the client receives, encoded.
func next(t *testing.T, l Line) string {
	t.Helper()
	type res struct {
		m   jsonrpc.Message
		err error
	}
	ch := make(chan res, 1)
	go func() {
		m, err := l.Receive()
		ch <- res{m, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("Receive: %v", r.err)
		}
		data, _ := jsonrpc.EncodeMessage(r.m)
		return string(data)
	case <-time.After(10 * time.Second):
		t.Fatal("the client got nothing")
		return ""
	}
}

// holderGot is the next message the holder read.
func holderGot(t *testing.T, got chan string) string {
	t.Helper()
	select {
	case s := <-got:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("the holder got nothing")
		return ""
	}
}

func answerWith(m map[string]any, result string) string {
	id, _ := json.Marshal(m["id"])
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
}

// A 2026-07-28 client of a 2025 server: server/discover from the
// initialize result the holder gives, the io.modelcontextprotocol/* keys
// off each request (the rest of _meta kept), a per-request log level
// told once as logging/setLevel, ping answered here, and a question of
// the server's refused at once.
func TestTranslateForModernClient(t *testing.T) {
	tr, got := translated(t, Modern, func(m map[string]any) []string {
		switch m["method"] {
		case "initialize":
			return []string{answerWith(m, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"old","version":"2"},"instructions":"be kind"}`)}
		case "tools/call":
			return []string{`{"jsonrpc":"2.0","id":"h-q","method":"elicitation/create","params":{}}`, answerWith(m, `{"content":[]}`)}
		case "logging/setLevel":
			return []string{answerWith(m, `{}`)}
		}
		return nil
	})
	tr.Send(request(t, 1, "server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`))
	if m := holderGot(t, got); !strings.Contains(m, `"method":"initialize"`) {
		t.Fatalf("the holder got %s, want initialize", m)
	}
	if m := holderGot(t, got); !strings.Contains(m, `"method":"notifications/initialized"`) {
		t.Fatalf("the holder got %s, want notifications/initialized", m)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"old","version":"2"}},"capabilities":{"tools":{"listChanged":true}},"instructions":"be kind","supportedVersions":["2026-07-28"]}}`
	if m := next(t, tr); m != want {
		t.Errorf("discover answer\n%s\nwant\n%s", m, want)
	}
	tr.Send(request(t, 2, "ping", `{}`))
	if m := next(t, tr); m != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("ping answer %s", m)
	}
	tr.Send(request(t, 3, "tools/call", `{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/logLevel":"debug","progressToken":7,"traceparent":"00-x"}}`))
	if m := holderGot(t, got); m != `{"id":"serve-tr-2","jsonrpc":"2.0","method":"logging/setLevel","params":{"level":"debug"}}` {
		t.Errorf("the holder got %s, want logging/setLevel", m)
	}
	if m := holderGot(t, got); m != `{"id":3,"jsonrpc":"2.0","method":"tools/call","params":{"_meta":{"progressToken":7,"traceparent":"00-x"},"name":"t"}}` {
		t.Errorf("the holder got %s", m)
	}
	if m := holderGot(t, got); !strings.Contains(m, `"id":"h-q"`) || !strings.Contains(m, `mcpc serve cannot pass elicitation/create to this client`) {
		t.Errorf("the server's question was answered %s", m)
	}
	if m := next(t, tr); m != `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}` {
		t.Errorf("call answer %s", m)
	}
	// The same level again is not told again.
	tr.Send(request(t, 4, "tools/list", `{"_meta":{"io.modelcontextprotocol/logLevel":"debug"}}`))
	if m := holderGot(t, got); m != `{"id":4,"jsonrpc":"2.0","method":"tools/list","params":{}}` {
		t.Errorf("the holder got %s", m)
	}
}

// A 2025 client of a 2026-07-28 server: initialize from server/discover,
// its revision kept when mcpc knows it, the three _meta keys (and the log
// level it set) added to each request, notifications/initialized, ping
// and logging/setLevel answered here.
func TestTranslateForLegacyClient(t *testing.T) {
	for _, c := range []struct{ asked, want string }{{"2025-06-18", "2025-06-18"}, {"2099-01-01", "2025-11-25"}} {
		tr, got := translated(t, Legacy, func(m map[string]any) []string {
			switch m["method"] {
			case "server/discover":
				return []string{answerWith(m, `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"new","version":"3"}},"ttlMs":5}`)}
			case "tools/list":
				return []string{answerWith(m, `{"tools":[]}`)}
			}
			return nil
		})
		tr.Send(request(t, 0, "initialize", `{"protocolVersion":"`+c.asked+`","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}`))
		if m := holderGot(t, got); !strings.Contains(m, `"method":"server/discover"`) || !strings.Contains(m, `"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}`) {
			t.Fatalf("the holder got %s, want server/discover with the client's capabilities", m)
		}
		want := `{"jsonrpc":"2.0","id":0,"result":{"capabilities":{"tools":{}},"protocolVersion":"` + c.want + `","serverInfo":{"name":"new","version":"3"}}}`
		if m := next(t, tr); m != want {
			t.Errorf("initialize answer\n%s\nwant\n%s", m, want)
		}
		tr.Send(request(t, nil, "notifications/initialized", `{}`))
		tr.Send(request(t, 1, "ping", ``))
		if m := next(t, tr); m != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Errorf("ping answer %s", m)
		}
		tr.Send(request(t, 2, "logging/setLevel", `{"level":"info"}`))
		if m := next(t, tr); m != `{"jsonrpc":"2.0","id":2,"result":{}}` {
			t.Errorf("setLevel answer %s", m)
		}
		tr.Send(request(t, 3, "tools/list", `{"_meta":{"progressToken":"p"}}`))
		wantReq := `{"id":3,"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"p"}}}`
		if m := holderGot(t, got); m != wantReq {
			t.Errorf("the holder got\n%s\nwant\n%s", m, wantReq)
		}
		if m := next(t, tr); m != `{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}` {
			t.Errorf("tools/list answer %s", m)
		}
	}
}

// An input_required answer to a 2025 client: its questions are the
// client's, one at a time by key, and the request goes again with a new
// id, the answers and the requestState; the final answer is the client's
// under its own id. A server that asks for ever is stopped.
func TestTranslateInputRounds(t *testing.T) {
	ask := `{"resultType":"input_required","inputRequests":{"b":{"method":"roots/list"},"a":{"method":"elicitation/create","params":{"message":"name?"}}},"requestState":"s\u2028\"1"}`
	tr, got := translated(t, Legacy, func(m map[string]any) []string {
		p, _ := m["params"].(map[string]any)
		if m["method"] != "tools/call" {
			return nil
		}
		if p["inputResponses"] == nil || p["name"] == "forever" {
			return []string{answerWith(m, ask)}
		}
		return []string{answerWith(m, `{"content":[{"type":"text","text":"done"}]}`)}
	})
	tr.Send(request(t, 7, "tools/call", `{"name":"t"}`))
	holderGot(t, got)
	for _, q := range []string{
		`{"jsonrpc":"2.0","id":"serve-tr-q-1","method":"elicitation/create","params":{"message":"name?"}}`,
		`{"jsonrpc":"2.0","id":"serve-tr-q-2","method":"roots/list"}`,
	} {
		if m := next(t, tr); m != q {
			t.Fatalf("the client was asked\n%s\nwant\n%s", m, q)
		}
		var r struct{ ID any }
		json.Unmarshal([]byte(q), &r)
		tr.Send(&jsonrpc.Response{ID: id(t, r.ID), Result: json.RawMessage(`{"n":"` + r.ID.(string) + `"}`)})
	}
	retry := holderGot(t, got)
	if !strings.Contains(retry, `"id":"serve-tr-in-3"`) || !strings.Contains(retry, `"inputResponses":{"a":{"n":"serve-tr-q-1"},"b":{"n":"serve-tr-q-2"}}`) ||
		!strings.Contains(retry, `"requestState":"s\u2028\"1"`) {
		t.Errorf("the retry was %s", retry)
	}
	if m := next(t, tr); m != `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"done"}]}}` {
		t.Errorf("final answer %s", m)
	}

	tr.Send(request(t, 8, "tools/call", `{"name":"forever"}`))
	for {
		m := next(t, tr)
		if strings.Contains(m, `"id":8,`) {
			if !strings.Contains(m, `still asked for input after 8 rounds of answers`) {
				t.Errorf("a server asking for ever: %s", m)
			}
			break
		}
		var r struct{ ID any }
		json.Unmarshal([]byte(m), &r)
		tr.Send(&jsonrpc.Response{ID: id(t, r.ID), Result: json.RawMessage(`{}`)})
	}
}

// Open translates only when the server does not speak the client's era
// (a refusal of the era, or a session of the other era and no Hold), and
// says so once; any other failure is the client's answer.
func TestOpenTranslatesOnlyAnEraRefused(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	u := scriptedHolder(t, server("a"))
	var notes []string
	u.Log = func(s string) { notes = append(notes, s) }
	for range 2 {
		l, err := u.Open(context.Background(), Modern)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := l.(*translation); !ok {
			t.Fatalf("Open = %T, want a translation", l)
		}
		l.Close()
	}
	if len(notes) != 1 || notes[0] != "x: translated for 2026-07-28 clients, as it speaks a 2025 revision only" {
		t.Errorf("notes %q", notes)
	}
	session := u.Session
	for _, c := range []struct {
		err       error
		translate bool
	}{{fmt.Errorf("down"), false}, {fail.New(fail.Protocol, "", "no such era"), true}} {
		u := &Upstream{Name: "y", Limit: 1 << 20, Session: session, SessionEra: Modern,
			Hold: func(context.Context, Era) (*conn.Conn, error) { return nil, c.err }}
		l, err := u.Open(context.Background(), Legacy)
		if c.translate != (err == nil) {
			t.Errorf("%v: Open = %v, %v", c.err, l, err)
		}
		if err != nil && err.Error() != c.err.Error() {
			t.Errorf("%v: Open = %v", c.err, err)
		}
		if l != nil {
			l.Close()
		}
		u.Close()
	}
	// Neither era: the refusal of the client's is the answer.
	u2 := &Upstream{Name: "z", Session: filepath.Join(t.TempDir(), "none.sock"), SessionEra: Legacy}
	if _, err := u2.Open(context.Background(), Modern); err == nil || err.Error() != "z is held in 2025-11-25 only" {
		t.Errorf("Open = %v", err)
	}
}

// A 2026-07-28 client's subscriptions/listen on a 2025 server is
// acknowledged by serve, and the server's list changes name it; listens
// are bounded per line.
func TestTranslateListen(t *testing.T) {
	l, h := newLinkPair(t)
	go func() {
		for h.read() != nil {
		}
	}()
	tr := newTranslation(l, Modern, `server "s"`, 0, true)
	t.Cleanup(func() { tr.Close() })
	tr.Send(request(t, "sub-1", "subscriptions/listen", `{"notifications":{"toolsListChanged":true}}`))
	want := `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"},"notifications":{"toolsListChanged":true}}}`
	if m := next(t, tr); m != want {
		t.Errorf("ack\n%s\nwant\n%s", m, want)
	}
	h.write(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	if m := next(t, tr); m != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}}}` {
		t.Errorf("list change %s", m)
	}
	for i := range maxListens {
		tr.Send(request(t, i, "subscriptions/listen", `{}`))
		m := next(t, tr)
		if i < maxListens-1 && !strings.Contains(m, "acknowledged") {
			t.Fatalf("listen %d: %s", i, m)
		}
		if i == maxListens-1 && m != `{"jsonrpc":"2.0","id":15,"error":{"code":-32600,"message":"at most 16 subscriptions/listen at once on one line"}}` {
			t.Errorf("listen over the bound: %s", m)
		}
	}
}

// A 2025 client that does not answer serve's question within
// --request-timeout has its request answered with why.
func TestTranslateQuestionTimeout(t *testing.T) {
	tr, got := translated(t, Legacy, func(m map[string]any) []string {
		if m["method"] == "tools/call" {
			return []string{answerWith(m, `{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}}}`)}
		}
		return nil
	}, 50*time.Millisecond)
	tr.Send(request(t, 1, "tools/call", `{"name":"t"}`))
	holderGot(t, got)
	if m := next(t, tr); !strings.Contains(m, `"method":"roots/list"`) {
		t.Fatalf("the client was asked %s", m)
	}
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"the client did not answer roots/list for server \"s\" within 50ms (mcpc serve --request-timeout)"}}`
	if m := next(t, tr); m != want {
		t.Errorf("answer\n%s\nwant\n%s", m, want)
	}
}

// A 2025 server's question during a 2026-07-28 client's call on a line
// that lasts: the call is answered input_required, the retry answers the
// question, and the server's answer to the call is the retry's. A
// requestState serve does not hold is refused; a client that did not
// declare the capability is not asked.
func TestTranslateQuestionAsInputRequired(t *testing.T) {
	tr, got := translated(t, Modern, func(m map[string]any) []string {
		switch {
		case m["method"] == "tools/call":
			return []string{`{"jsonrpc":"2.0","id":"h-q","method":"elicitation/create","params":{"message":"name?"}}`}
		case m["id"] == "h-q":
			res, _ := json.Marshal(m["result"])
			return []string{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":` + strconvQuote(string(res)) + `}]}}`}
		}
		return nil
	})
	caps := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	tr.Send(request(t, 1, "tools/call", `{"name":"ask",`+caps+`}`))
	holderGot(t, got)
	want := `{"jsonrpc":"2.0","id":1,"result":{"inputRequests":{"q":{"method":"elicitation/create","params":{"message":"name?"}}},"requestState":"mcpc-serve-ask-1","resultType":"input_required"}}`
	if m := next(t, tr); m != want {
		t.Fatalf("the call was answered\n%s\nwant\n%s", m, want)
	}
	tr.Send(request(t, 2, "tools/call", `{"name":"ask","inputResponses":{"q":{"action":"accept","content":{"name":"Ann"}}},"requestState":"mcpc-serve-ask-1",`+caps+`}`))
	if m := holderGot(t, got); m != `{"id":"h-q","jsonrpc":"2.0","result":{"action":"accept","content":{"name":"Ann"}}}` {
		t.Errorf("the server's question was answered %s", m)
	}
	if m := next(t, tr); m != `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"action\":\"accept\",\"content\":{\"name\":\"Ann\"}}"}]}}` {
		t.Errorf("the retry was answered %s", m)
	}
	tr.Send(request(t, 3, "tools/call", `{"name":"ask","inputResponses":{},"requestState":"mcpc-serve-ask-1",`+caps+`}`))
	if m := next(t, tr); !strings.Contains(m, `"id":3,"error":{"code":-32602,"message":"server \"s\": requestState \"mcpc-serve-ask-1\" names no question`) {
		t.Errorf("a requestState not held: %s", m)
	}
	// Without the capability, the question is refused at once.
	tr.Send(request(t, 4, "tools/call", `{"name":"ask"}`))
	holderGot(t, got)
	if m := holderGot(t, got); !strings.HasPrefix(m, `{"error":{"code":-32601,"message":"server \"s\": mcpc serve cannot pass elicitation/create`) || !strings.Contains(m, `"id":"h-q"`) {
		t.Errorf("the server's question to a client without elicitation: %s", m)
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A cancellation of a retry names the request the server knows.
func TestTranslateCancelRetry(t *testing.T) {
	tr, got := translated(t, Modern, func(m map[string]any) []string {
		if m["method"] == "tools/call" {
			return []string{`{"jsonrpc":"2.0","id":"h-q","method":"roots/list"}`}
		}
		return nil
	})
	caps := `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{}}}`
	tr.Send(request(t, 1, "tools/call", `{"name":"t",`+caps+`}`))
	holderGot(t, got)
	next(t, tr)
	tr.Send(request(t, 2, "tools/call", `{"name":"t","inputResponses":{"q":{"roots":[]}},"requestState":"mcpc-serve-ask-1",`+caps+`}`))
	holderGot(t, got) // the question's answer
	tr.Send(request(t, nil, "notifications/cancelled", `{"requestId":2}`))
	if m := holderGot(t, got); m != `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}` {
		t.Errorf("the holder got %s", m)
	}
}
