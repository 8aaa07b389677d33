package conn

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// answerServer answers each request as its X-Answer header says:
// "STATUS|CONTENT-TYPE|BODY".
func answerServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		f := strings.SplitN(r.Header.Get("X-Answer"), "|", 3)
		status, _ := strconv.Atoi(f[0])
		if f[1] != "" {
			w.Header().Set("Content-Type", f[1])
		}
		w.WriteHeader(status)
		io.WriteString(w, f[2])
	}))
	t.Cleanup(srv.Close)
	return srv
}

// ask sends a tools/list through c to an answerServer, which answers it
// as answer says; header are more name, value pairs for the request.
func ask(t *testing.T, c *http.Client, srv *httptest.Server, method, answer string, header ...string) (*http.Response, error) {
	t.Helper()
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}`)
	}
	req, err := http.NewRequest(method, srv.URL, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Answer", answer)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return c.Do(req)
}

// sdkWrapped is how the SDK returns a transport error from a request: the
// summary, its "rejected by transport" code, and Go's *url.Error (err).
func sdkWrapped(err error) error {
	rejected := &jsonrpc.Error{Code: codeRejectedByTransport, Message: "rejected by transport"}
	return fmt.Errorf("calling %q: %w", "tools/list", fmt.Errorf("sending %q: %w: %w", "tools/list", rejected, err))
}

// Each error is explained from its own evidence: a 401 that went to the
// OAuth handler earlier in the connection (which the old, session-wide
// "last status" kept) does not make a later JSON-RPC rejection an
// authentication failure. The evidence is what real round trips through
// the transport attached to their errors.
func TestExplainFromItsOwnEvidence(t *testing.T) {
	srv := answerServer(t)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	w := newWire()
	tr := transport.NewHTTP(transport.HTTPOptions{Base: http.DefaultTransport, Endpoint: u, Label: "server at " + srv.URL,
		Headers: http.Header{}, Tap: w.tap, OAuth: true})
	for _, a := range []struct{ method, answer string }{{http.MethodPost, "401|text/plain|unauthorized"}, {http.MethodGet, "405|text/plain|no stream"}} {
		resp, err := ask(t, tr.Client(), srv, a.method, a.answer)
		if err != nil {
			t.Fatalf("%s: got %v, want the response for the SDK", a.answer, err)
		}
		resp.Body.Close()
	}
	// What the SDK would have been given as the error of a request answered
	// so (mcpc's own requests see every unusable answer as an error).
	answered := func(answer string, header ...string) error {
		resp, err := ask(t, tr.OwnClient(), srv, http.MethodPost, answer, header...)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("%s: got the response, want an error", answer)
		}
		return sdkWrapped(err)
	}
	s := &Conn{Entry: &config.Entry{Name: "x", Server: &config.Server{URL: srv.URL}}, Label: `server "x"`, wire: w, http: tr}
	ctx := context.Background()
	for _, tc := range []struct {
		err  error
		code fail.Code
		msg  string
	}{
		{fmt.Errorf("calling %q: %w", "tools/call", &jsonrpc.Error{Code: -32000, Message: "not allowed"}),
			fail.Rejected, `server "x" rejected the request: not allowed (JSON-RPC error -32000)`},
		{answered("200|text/html|<html>"),
			fail.Protocol, `server "x" answered 200 text/html, not JSON: a login page or a proxy?`},
		{answered("200|application/json|"),
			fail.Protocol, `server "x" answered 200 with an empty body, not a JSON-RPC message`},
		{answered(`200|application/json|{"ok":true}`),
			fail.Protocol, `server "x" answered 200 with JSON that is not a JSON-RPC message: {"ok":true}`},
		{answered(`200|application/json|{"ok":`),
			fail.Protocol, `server "x" answered 200 application/json that is not valid JSON: "{\"ok\":"`},
		{answered("401||", "Authorization", "Bearer old"),
			fail.AuthFailed, `server "x" rejected the credentials that were sent (HTTP 401)`},
		{answered(`400|application/json|{"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"header mismatch"}}`),
			fail.Rejected, `server "x" rejected the request: header mismatch (JSON-RPC error -32020)`},
		{answered("503|text/plain|busy", "Mcp-Method", "tools/call"),
			fail.HTTPStatus, `server "x" answered HTTP 503 Service Unavailable to tools/call: busy`},
	} {
		f := fail.As(s.explain(ctx, "list tools of", tc.err))
		if f == nil || f.Code != tc.code || f.Msg != tc.msg {
			t.Errorf("explain(%v) = %+v, want %s %q", tc.err, f, tc.code, tc.msg)
		}
	}
}

// A failure's message quotes the URL Go's client sent to, which on HTTP+SSE
// is the message endpoint the server announced, whose query names the
// session: it is redacted like the configured URL.
func TestExplainRedactsTheMessageEndpoint(t *testing.T) {
	s := &Conn{Entry: &config.Entry{Name: "x", Server: &config.Server{URL: "https://h.example/sse?key=k1"}}, Label: `server "x"`, wire: newWire()}
	err := fmt.Errorf("calling \"tools/list\": %v", &url.Error{Op: "Post", URL: "https://h.example/messages?sessionId=s1", Err: io.ErrUnexpectedEOF})
	f := fail.As(s.explain(context.Background(), "list tools on", err))
	want := `cannot list tools on server "x": calling "tools/list": Post "https://h.example/messages?sessionId=REDACTED": unexpected EOF`
	if f == nil || f.Msg != want || f.Code != fail.Connection {
		t.Errorf("got %#v, want %q", f, want)
	}
}

// A 403 that asks for no credentials, to a request that sent none, is the
// server refusing the request (exit 5): its words are the message, one
// line, escapes stripped, bounded; a body that only repeats the status,
// or says nothing, leaves the hint to say where to look.
func TestForbiddenSaysWhy(t *testing.T) {
	s := &Conn{Entry: &config.Entry{Name: "pw", Server: &config.Server{URL: "http://127.0.0.1:8931/mcp"}}, Label: `server "pw"`}
	long := strings.Repeat("x", 300)
	for _, c := range []struct{ name, contentType, body, msg, hint string }{
		{"a bare body", "", "Access is only allowed at localhost:8931",
			`server "pw" refused the request (HTTP 403 Forbidden): Access is only allowed at localhost:8931`, "its answer says why"},
		{"text/plain, escapes and lines", "text/plain", "\x1b[31mno\x1b[0m\nentry\r\n",
			`server "pw" refused the request (HTTP 403 Forbidden): no entry`, "its answer says why"},
		{"bounded", "", long,
			`server "pw" refused the request (HTTP 403 Forbidden): ` + long[:200] + "…", "its answer says why"},
		{"the status again", "text/plain", "403 Forbidden",
			`server "pw" refused the request (HTTP 403 Forbidden)`, "check the URL against the hosts and origins the server accepts"},
		{"nothing", "", "",
			`server "pw" refused the request (HTTP 403 Forbidden)`, "check the URL against the hosts and origins the server accepts"},
		{"an HTML page", "text/html", "<html>denied</html>",
			`server "pw" refused the request (HTTP 403 Forbidden)`, "check the URL against the hosts and origins the server accepts"},
	} {
		f := s.httpFailure(transport.Answered(403, c.contentType, []byte(c.body)))
		if f.Code != fail.HTTPStatus || f.Msg != c.msg || !strings.HasPrefix(f.Hint, "not a login problem: ") || !strings.HasSuffix(f.Hint, c.hint) {
			t.Errorf("%s: got %s %q (hint %q), want http_status %q (hint ending %q)", c.name, f.Code, f.Msg, f.Hint, c.msg, c.hint)
		}
	}
}
