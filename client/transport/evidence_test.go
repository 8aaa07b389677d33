package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// answer is what the test server sends back, in order, one per request.
type answer struct {
	status int
	ct     string
	body   string
}

func scriptedServer(t *testing.T, answers ...answer) *httptest.Server {
	t.Helper()
	next := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if next >= len(answers) {
			t.Errorf("request %d: no answer scripted", next+1)
			http.Error(w, "unscripted", http.StatusTeapot)
			return
		}
		a := answers[next]
		next++
		if a.ct != "" {
			w.Header().Set("Content-Type", a.ct)
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func testTransport(t *testing.T, srv *httptest.Server) *HTTP {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return NewHTTP(HTTPOptions{Base: http.DefaultTransport, Endpoint: u, Label: "server at " + srv.URL, Headers: http.Header{}, Tap: NewTap(quietWire{})})
}

// quietWire is a Wire that changes nothing and traces nothing.
type quietWire struct{}

func (quietWire) Outgoing(jsonrpc.Message) (*jsonrpc.Response, error) { return nil, nil }
func (quietWire) Incoming(jsonrpc.Message)                            {}
func (quietWire) Frame(data []byte) []byte                            { return data }
func (quietWire) Skip([]byte) bool                                    { return false }
func (quietWire) Refused(*jsonrpc.Request, *HTTPError)                {}
func (quietWire) Verbose() func(string)                               { return nil }

// post sends a JSON-RPC message as the SDK does (a re-readable body).
func post(c *http.Client, url, msg string, header ...string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(msg)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return c.Do(req)
}

const (
	listCall     = `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}`
	notification = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	rpcErrorBody = `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no such method"}}`
)

// What the SDK cannot use comes back as an *httpError in the request's own
// error; what it acts on itself (a 405 to the standalone GET, a JSON-RPC
// error in a 4xx) reaches it as a response.
func TestRoundTripEvidence(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a      answer
		msg    string // "" for a GET
		own    bool
		status int // of the *httpError; 0: the response passes
		check  func(*HTTPError) string
	}{
		{name: "html page", a: answer{200, "text/html; charset=utf-8", "<html><title>Sign in</title></html>"}, msg: listCall, status: 200,
			check: func(e *HTTPError) string { return fmt.Sprint(e.contentType == "text/html" && !e.empty && !e.json) }},
		{name: "empty 200", a: answer{200, "application/json", ""}, msg: listCall, status: 200,
			check: func(e *HTTPError) string { return fmt.Sprint(e.empty) }},
		{name: "not JSON-RPC", a: answer{200, "application/json", `{"ok":true}`}, msg: listCall, status: 200,
			check: func(e *HTTPError) string { return fmt.Sprint(e.json && e.excerpt == `{"ok":true}`) }},
		{name: "202 to a call", a: answer{202, "", ""}, msg: listCall, status: 202},
		{name: "notification accepted", a: answer{202, "", ""}, msg: notification},
		{name: "plain 500", a: answer{500, "text/plain", "it broke\n"}, msg: listCall, status: 500,
			check: func(e *HTTPError) string { return fmt.Sprint(e.PlainText() == "it broke") }},
		{name: "GET 405", a: answer{405, "text/plain", "no stream"}},
		{name: "JSON-RPC error in a 400", a: answer{400, "application/json", rpcErrorBody}, msg: listCall},
		{name: "JSON-RPC error in a 400, own request", a: answer{400, "application/json", rpcErrorBody}, msg: listCall, own: true, status: 400,
			check: func(e *HTTPError) string { return fmt.Sprint(e.rpc != nil && e.rpc.Code == -32601) }},
		{name: "401 without an OAuth handler", a: answer{401, "text/plain", "unauthorized"}, msg: listCall, status: 401,
			check: func(e *HTTPError) string { return fmt.Sprint(!e.credentials) }},
		{name: "401 with a JSON-RPC error", a: answer{401, "application/json", rpcErrorBody}, msg: listCall, status: 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := scriptedServer(t, tc.a)
			tr := testTransport(t, srv)
			c := tr.Client()
			if tc.own {
				c = tr.OwnClient()
			}
			var resp *http.Response
			var err error
			if tc.msg == "" {
				resp, err = c.Get(srv.URL)
			} else {
				resp, err = post(c, srv.URL, tc.msg)
			}
			var he *HTTPError
			if tc.status == 0 {
				if err != nil {
					t.Fatalf("got %v, want the response", err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tc.a.status || string(body) != tc.a.body {
					t.Errorf("got %d %q, want %d %q as sent", resp.StatusCode, body, tc.a.status, tc.a.body)
				}
				return
			}
			if !errors.As(err, &he) {
				t.Fatalf("got %v, %v; want an *HTTPError", resp, err)
			}
			if he.status != tc.status {
				t.Errorf("status %d, want %d", he.status, tc.status)
			}
			if tc.check != nil && tc.check(he) != "true" {
				t.Errorf("unexpected evidence %+v", he)
			}
		})
	}
}

// With an OAuth handler, a request's first challenge goes to the SDK (its
// handler answers it and retries); the retry's 401 is the server's verdict.
// The 404 that ends a session is the SDK's, except for mcpc's own requests.
func TestRoundTripLeavesTheSDKItsAnswers(t *testing.T) {
	srv := scriptedServer(t, answer{401, "text/plain", "unauthorized"}, answer{401, "text/plain", "unauthorized"},
		answer{404, "text/plain", "404 page not found"}, answer{404, "text/plain", "404 page not found"})
	tr := testTransport(t, srv)
	tr.oauth = true
	resp, err := post(tr.Client(), srv.URL, listCall)
	if err != nil || resp.StatusCode != 401 {
		t.Fatalf("first challenge: got %v, %v; want the 401 for the OAuth handler", resp, err)
	}
	resp.Body.Close()
	var he *HTTPError
	if _, err := post(tr.Client(), srv.URL, listCall, "Authorization", "Bearer new"); !errors.As(err, &he) || he.status != 401 || !he.credentials {
		t.Fatalf("the retry's 401: got %v, want an *HTTPError saying credentials were sent", err)
	}
	resp, err = post(tr.Client(), srv.URL, listCall, "Mcp-Session-Id", "s1")
	if err != nil || resp.StatusCode != 404 {
		t.Fatalf("session 404: got %v, %v; want the response (ErrSessionMissing is the SDK's)", resp, err)
	}
	resp.Body.Close()
	if _, err := post(tr.OwnClient(), srv.URL, listCall, "Mcp-Session-Id", "s1"); !errors.As(err, &he) || he.status != 404 {
		t.Fatalf("own request's 404: got %v, want an *HTTPError", err)
	}
}

// An excerpt of a server's answer is safe to print: escapes stripped, one
// line, bounded.
func TestExcerpt(t *testing.T) {
	for in, want := range map[string]string{
		"plain\n":                          "plain",
		"a\x1b[2J\x1b]0;title\x07b\r\nc\n": "ab c",
		"\u202eevil":                       "evil",
		strings.Repeat("é", 300):           strings.Repeat("é", excerptRunes) + "…",
	} {
		if got := excerpt([]byte(in)); got != want {
			t.Errorf("excerpt(%q) = %q, want %q", in, got, want)
		}
	}
}

// traceWire is quietWire with --verbose on: it keeps the lines.
type traceWire struct {
	quietWire
	lines *[]string
}

func (w traceWire) Verbose() func(string) { return func(l string) { *w.lines = append(*w.lines, l) } }

// The --verbose line of an HTTP exchange shows the protocol headers but
// none that may let someone else act as the user: configured headers, an
// Authorization, a session id (either way), a cookie.
func TestTraceHTTPRedacts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Mcp-Session-Id", "sess-from-server")
		w.Header().Set("Set-Cookie", "c=cookie-value")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{}}`)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	var lines []string
	tr := NewHTTP(HTTPOptions{Base: http.DefaultTransport, Endpoint: u, Label: "server", Headers: http.Header{"X-Token": {"configured-value"}},
		Tap: NewTap(traceWire{lines: &lines})})
	resp, err := post(tr.Client(), srv.URL, listCall, "Mcp-Session-Id", "sess-from-client", "Mcp-Protocol-Version", "2025-11-25",
		"Authorization", "Bearer bearer-value")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := strings.Join(lines, "\n")
	for _, secret := range []string{"sess-from-server", "sess-from-client", "cookie-value", "configured-value", "bearer-value"} {
		if strings.Contains(got, secret) {
			t.Errorf("the trace shows %s:\n%s", secret, got)
		}
	}
	for _, shown := range []string{"Mcp-Protocol-Version: 2025-11-25", "Mcp-Session-Id: <redacted>", "Content-Type: application/json"} {
		if !strings.Contains(got, shown) {
			t.Errorf("the trace lacks %q:\n%s", shown, got)
		}
	}
}
