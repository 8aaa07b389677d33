package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/transport"
)

// fakeHolder serves a socket like a session's holder that answers every
// request at once with {"method": its method}; it answers initialize as a
// 2025 server would. An "ask" is answered after the server's question
// (elicitation/create, id "q-1") is: its result is the question's answer.
// A notification "poke" has the question asked under no request; "last"
// is answered with the last answer to it. Each answer the fake gets is
// also sent on answered, when it is not nil (a buffered channel).
func fakeHolder(t *testing.T, answered ...chan<- []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "h.sock")
	ln, err := transport.ListenSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := transport.NewMessageReader(c, 1<<20)
				var ask *jsonrpc.Request
				last := []byte("null")
				for {
					msgs, err := r.Read()
					if err != nil {
						return
					}
					for _, m := range msgs {
						if ans, ok := m.(*jsonrpc.Response); ok {
							last, _ = jsonrpc.EncodeMessage(ans)
							for _, a := range answered {
								a <- last
							}
							if ask != nil {
								data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: ask.ID, Result: last})
								c.Write(append(data, '\n'))
								ask = nil
							}
						}
						req, ok := m.(*jsonrpc.Request)
						if ok && req.Method == "poke" {
							c.Write([]byte(`{"jsonrpc":"2.0","id":"q-1","method":"elicitation/create","params":{"message":"go on?"}}` + "\n"))
						}
						if !ok || !req.IsCall() || req.Method == "hang" {
							continue
						}
						if req.Method == "ask" {
							ask = req
							c.Write([]byte(`{"jsonrpc":"2.0","id":"q-1","method":"elicitation/create","params":{"message":"go on?"}}` + "\n"))
							continue
						}
						res, _ := json.Marshal(map[string]string{"method": req.Method})
						if req.Method == "last" {
							res = last
						}
						if req.Method == "initialize" {
							res = json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"fake","version":"1"}}`)
						}
						data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: res})
						c.Write(append(data, '\n'))
					}
				}
			}()
		}
	}()
	return path
}

func testFront(t *testing.T, era Era, answered ...chan<- []byte) *httptest.Server {
	t.Helper()
	u := &Upstream{Name: `server "fake"`, Limit: 1 << 10, Session: fakeHolder(t, answered...), SessionEra: era}
	h := &HTTP{Endpoints: []Endpoint{{"/mcp", u}}, Bearer: "s3cret", MaxRequests: 2 * maxSessionRequests}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); srv.Close() })
	return srv
}

type reply struct {
	status int
	header http.Header
	body   string
}

func post(t *testing.T, srv *httptest.Server, body string, headers ...string) reply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer s3cret")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) reply {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, string(b)}
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

// Who may ask: a bearer is required (compared as a whole), a Host or an
// Origin that is not this machine's is refused before it is asked for.
func TestHTTPWhoMayAsk(t *testing.T) {
	srv := testFront(t, Legacy)
	for _, c := range []struct {
		name   string
		header []string
		status int
		body   string
	}{
		{"no bearer", []string{"Authorization", ""}, 401, "a bearer token is required: the one mcpc serve printed at its start\n"},
		{"wrong bearer", []string{"Authorization", "Bearer s3cre"}, 401, "a bearer token is required: the one mcpc serve printed at its start\n"},
		{"foreign origin", []string{"Origin", "https://evil.example"}, 403, "forbidden: Origin https://evil.example is not a loopback page\n"},
		{"foreign host", []string{"Host", "evil.example"}, 403, "forbidden: Host evil.example is not this machine's loopback address\n"},
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(initialize))
		req.Header.Set("Authorization", "Bearer s3cret")
		req.Header.Set(c.header[0], c.header[1])
		if c.header[0] == "Host" {
			req.Host = c.header[1]
		}
		r := do(t, req)
		if r.status != c.status || r.body != c.body {
			t.Errorf("%s: %d %q, want %d %q", c.name, r.status, r.body, c.status, c.body)
		}
		if c.status == 401 && r.header.Get("WWW-Authenticate") != `Bearer realm="mcpc serve"` {
			t.Errorf("%s: WWW-Authenticate %q", c.name, r.header.Get("WWW-Authenticate"))
		}
	}
	if r := post(t, srv, initialize, "Origin", "http://localhost:3000"); r.status != 200 {
		t.Errorf("a loopback page: %d %s", r.status, r.body)
	}
}

// A 2025 client's HTTP session: initialize names it, a request within it
// is answered on its stream, an unknown or ended one is 404.
func TestHTTPSessionLifecycle(t *testing.T) {
	srv := testFront(t, Legacy)
	r := post(t, srv, initialize)
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != 200 || len(sid) != 32 || !strings.Contains(r.body, `"serverInfo":{"name":"fake"`) {
		t.Fatalf("initialize: %d %q %s", r.status, sid, r.body)
	}
	r = post(t, srv, `{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}`, "Mcp-Session-Id", sid)
	if want := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{\"method\":\"tools/list\"}}\n\n"; r.status != 200 || r.body != want {
		t.Fatalf("tools/list: %d %q, want %q", r.status, r.body, want)
	}
	r = post(t, srv, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", sid)
	if r.status != 202 {
		t.Fatalf("a notification: %d %s", r.status, r.body)
	}
	if r = post(t, srv, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, "Mcp-Session-Id", "0123"); r.status != 404 {
		t.Fatalf("an unknown HTTP session: %d %s", r.status, r.body)
	}
	req, _ := http.NewRequest(http.MethodDelete, srv.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	req.Header.Set("Mcp-Session-Id", sid)
	if r = do(t, req); r.status != 204 {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	if r = post(t, srv, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, "Mcp-Session-Id", sid); r.status != 404 {
		t.Fatalf("an ended HTTP session: %d %s", r.status, r.body)
	}
	// Without an HTTP session, a 2025 request has nothing to go with.
	if r = post(t, srv, `{"jsonrpc":"2.0","id":4,"method":"ping"}`); r.status != 400 {
		t.Fatalf("no Mcp-Session-Id: %d %s", r.status, r.body)
	}
}

// A 2026-07-28 request stands alone; a JSON-only client gets the answer
// as JSON; a body past the limit is refused whole.
func TestHTTPStateless(t *testing.T) {
	srv := testFront(t, Modern)
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	r := post(t, srv, body, "Accept", "application/json")
	if r.status != 200 || r.body != `{"jsonrpc":"2.0","id":7,"result":{"method":"tools/list"}}` || r.header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("stateless: %d %q %v", r.status, r.body, r.header)
	}
	if r = post(t, srv, `{"jsonrpc":"2.0","id":8,"method":"x","params":{"pad":"`+strings.Repeat("x", 2000)+`"}}`); r.status != 413 {
		t.Fatalf("over the limit: %d %s", r.status, r.body)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	if r = do(t, req); r.status != 405 {
		t.Fatalf("GET without an HTTP session: %d %s", r.status, r.body)
	}
}

// One client's HTTP session runs at most maxSessionRequests requests at
// once: one more is 429, and another client is still served.
func TestHTTPSessionRequestCap(t *testing.T) {
	u := &Upstream{Name: `server "fake"`, Limit: 1 << 10, Session: fakeHolder(t), SessionEra: Legacy}
	h := &HTTP{Endpoints: []Endpoint{{"/mcp", u}}, Bearer: "s3cret", MaxRequests: 2 * maxSessionRequests}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); srv.Close() })
	sid := post(t, srv, initialize).header.Get("Mcp-Session-Id")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range maxSessionRequests {
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/mcp", strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":"h%d","method":"hang"}`, i)))
			req.Header.Set("Authorization", "Bearer s3cret")
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Mcp-Session-Id", sid)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	// Until every one runs (an event, not a delay: the session counts them).
	for deadline := time.Now().Add(30 * time.Second); h.session(sid).running() < maxSessionRequests; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d requests run", h.session(sid).running(), maxSessionRequests)
		}
	}
	r := post(t, srv, `{"jsonrpc":"2.0","id":"over","method":"ping"}`, "Mcp-Session-Id", sid)
	if r.status != 429 || r.header.Get("Retry-After") != "1" || r.body != "this HTTP session runs as many requests as serve lets one client run at once\n" {
		t.Fatalf("one past the cap: %d %v %q", r.status, r.header, r.body)
	}
	if other := post(t, srv, initialize); other.status != 200 {
		t.Fatalf("another client: %d %s", other.status, other.body)
	}
}

// A question of the server's goes to the stream of the request it is
// asked under; when no stream can carry it (a JSON-only request, none
// open), serve answers the server at once with why.
func TestHTTPQuestionRouting(t *testing.T) {
	answered := make(chan []byte, 8)
	srv := testFront(t, Legacy, answered)
	sid := post(t, srv, initialize).header.Get("Mcp-Session-Id")
	// JSON only: the question cannot be carried; the server hears so.
	r := post(t, srv, `{"jsonrpc":"2.0","id":"a","method":"ask"}`, "Mcp-Session-Id", sid, "Accept", "application/json")
	want := `{"jsonrpc":"2.0","id":"a","result":{"jsonrpc":"2.0","id":"q-1","error":{"code":-32603,"message":"mcpc serve: the client's request takes a JSON answer only, which cannot carry the server's question"}}}`
	if r.status != 200 || r.body != want {
		t.Fatalf("JSON-only ask: %d %s\nwant %s", r.status, r.body, want)
	}
	// An event stream: the question is on the ask's own stream, and the
	// client's answer reaches the server.
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":"b","method":"ask"}`))
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer s3cret")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var lines []string
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			lines = append(lines, d)
			if len(lines) == 1 {
				if a := post(t, srv, `{"jsonrpc":"2.0","id":"q-1","result":{"action":"accept"}}`, "Mcp-Session-Id", sid); a.status != 202 {
					t.Fatalf("the answer: %d %s", a.status, a.body)
				}
			}
		}
	}
	want = `{"jsonrpc":"2.0","id":"q-1","method":"elicitation/create","params":{"message":"go on?"}}` + "\n" +
		`{"jsonrpc":"2.0","id":"b","result":{"jsonrpc":"2.0","id":"q-1","result":{"action":"accept"}}}`
	if got := strings.Join(lines, "\n"); got != want {
		t.Fatalf("SSE ask:\n%s\nwant\n%s", got, want)
	}
	// None in flight and no stream of its own: answered at once (the
	// server asks on a "poke"). The answer is read as the fake got it: a
	// request sent to ask for it would be in flight when the question
	// came, and take it.
	for len(answered) > 0 {
		<-answered
	}
	if r := post(t, srv, `{"jsonrpc":"2.0","method":"poke"}`, "Mcp-Session-Id", sid); r.status != 202 {
		t.Fatalf("poke: %d %s", r.status, r.body)
	}
	want = `{"jsonrpc":"2.0","id":"q-1","error":{"code":-32603,"message":"mcpc serve: the client has no stream open to carry the server's question"}}`
	select {
	case got := <-answered:
		if string(got) != want {
			t.Fatalf("no stream: %s\nwant the answer %s", got, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no stream: the server's question was never answered")
	}
}

// A body is one JSON value however it is laid out: pretty-printed (over
// several lines) it is read as on one.
func TestHTTPPrettyBody(t *testing.T) {
	srv := testFront(t, Legacy)
	pretty := "{\n  \"jsonrpc\": \"2.0\",\r\n  \"id\": 1,\n  \"method\": \"initialize\",\n  \"params\": {\"protocolVersion\": \"2025-11-25\",\n \"capabilities\": {}, \"clientInfo\": {\"name\": \"c\", \"version\": \"1\"}}\n}\n"
	if r := post(t, srv, pretty); r.status != 200 || !strings.Contains(r.body, `"serverInfo":{"name":"fake"`) {
		t.Fatalf("pretty initialize: %d %s", r.status, r.body)
	}
	if r := post(t, srv, "{\n\"jsonrpc\": \"2.0\",\n"); r.status != 400 {
		t.Fatalf("a broken body: %d %s", r.status, r.body)
	}
}
