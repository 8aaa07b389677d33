package creds

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/httpx"
	"github.com/mcpc-dev/mcpc/internal/memtest"
	"github.com/mcpc-dev/mcpc/internal/redact"
)

func TestParseHelperOutput(t *testing.T) {
	deep := `{"X-A": ` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
	many := "{"
	for i := range helperMaxHeaders + 1 {
		many += fmt.Sprintf(`"X-%d": "v",`, i)
	}
	many = strings.TrimSuffix(many, ",") + "}"
	for _, c := range []struct {
		name, out string
		bearer    bool
		want      http.Header
		err       string
	}{
		{name: "headers", out: `{"Authorization": "Bearer abc", "x-api-key": "k1\tk2"}`,
			want: http.Header{"Authorization": {"Bearer abc"}, "X-Api-Key": {"k1\tk2"}}},
		{name: "empty object", out: ` {} `, want: http.Header{}},
		{name: "bearer trimmed", out: "  tok-123\r\n", bearer: true, want: http.Header{"Authorization": {"Bearer tok-123"}}},
		{name: "bearer empty", out: "\n\n", bearer: true, err: "it printed no token"},
		{name: "bearer words", out: "Error: not logged in\n", bearer: true, err: "it printed more than one token"},
		{name: "bearer lines", out: "tok\nmore\n", bearer: true, err: "it printed more than one token"},
		{name: "bearer control", out: "tok\x00en", bearer: true, err: "it printed more than one token"},
		{name: "crlf escaped", out: `{"X-Token": "a\r\nX-Evil: 1"}`, err: `the value of "X-Token" contains a control character such as CR or LF`},
		{name: "nul escaped", out: `{"X-Token": "a\u0000b"}`, err: `the value of "X-Token" contains a control character`},
		{name: "number", out: `{"X-Token": 42}`, err: `the value of "X-Token" is not a string`},
		{name: "nested", out: `{"X-Token": {"a": ["b"]}}`, err: `the value of "X-Token" is not a string`},
		{name: "null value", out: `{"X-Token": null}`, err: `the value of "X-Token" is not a string`},
		{name: "deeply nested", out: deep, err: "its output is not a JSON object"},
		{name: "array", out: `["a"]`, err: "its output is not a JSON object"},
		{name: "null", out: `null`, err: "its output is not a JSON object"},
		{name: "text", out: "Bearer abc\n", err: "its output is not a JSON object"},
		{name: "trailing", out: `{"X-A": "b"} {"X-C": "d"}`, err: "its output is not a JSON object"},
		{name: "too many", out: many, err: "it gave 65 headers; at most 64 are taken"},
		{name: "bad name", out: `{"X Token": "v"}`, err: `"X Token" is not an HTTP header name`},
		{name: "name with colon", out: `{"X-A:b": "v"}`, err: `"X-A:b" is not an HTTP header name`},
		{name: "empty name", out: `{"": "v"}`, err: `"" is not an HTTP header name`},
		{name: "name with line break", out: `{"X\nA": "v"}`, err: `"X A" is not an HTTP header name`},
		{name: "mcp header", out: `{"mcp-session-id": "v"}`, err: `"mcp-session-id" is set by mcpc itself`},
		{name: "host", out: `{"Host": "evil.example"}`, err: `"Host" is set by mcpc itself`},
		{name: "content length", out: `{"Content-Length": "0"}`, err: `"Content-Length" is set by mcpc itself`},
		{name: "duplicate", out: `{"X-Token": "a", "x-token": "b"}`, err: `it gave the header "X-Token" twice`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseHelperOutput([]byte(c.out), c.bearer)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				if strings.Contains(err.Error(), "Evil") || strings.Contains(err.Error(), "abc") {
					t.Fatalf("the error quotes a value: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestHeaderNameAndValue(t *testing.T) {
	for k, want := range map[string]bool{"X-Token": true, "x_y.z~!#$%&'*+^`|": true, "": false, "a b": false, "a\tb": false, "é": false, "a/b": false} {
		if got := httpx.ValidHeaderName(k); got != want {
			t.Errorf("ValidHeaderName(%q) = %v", k, got)
		}
	}
	for v, want := range map[string]bool{"": true, "a\tb": true, "a\rb": false, "a\nb": false, "a\x7fb": false, "é": true} {
		if got := httpx.ValidHeaderValue(v); got != want {
			t.Errorf("ValidHeaderValue(%q) = %v", v, got)
		}
	}
}

// shHelper is a helper that runs script with sh, in dir; it counts its
// runs in dir/runs.
func shHelper(t *testing.T, script string, o HelperOptions) (*Helper, func() int) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the helpers are sh scripts")
	}
	dir := t.TempDir()
	o.Argv = []string{"sh", "-c", "echo x >> runs; " + script}
	o.Dir, o.Server, o.Origin = dir, "srv", "https://mcp.example:443"
	o.Key = "headersCommand"
	if o.Bearer {
		o.Key = "bearerTokenCommand"
	}
	if o.Secrets == nil {
		o.Secrets = redact.NewSet()
	}
	runs := func() int {
		b, _ := os.ReadFile(filepath.Join(dir, "runs"))
		return strings.Count(string(b), "x")
	}
	return NewHelper(o), runs
}

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestHelperTTL(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	h, runs := shHelper(t, `echo "tok-$(wc -l < runs | tr -d ' ')-0123456789"`, HelperOptions{Bearer: true, TTL: time.Hour, Now: clock.now})
	ctx := context.Background()
	first, _, err := h.current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	again, _, _ := h.current(ctx)
	clock.t = clock.t.Add(59 * time.Minute)
	still, _, _ := h.current(ctx)
	if runs() != 1 || first.Get("Authorization") != "Bearer tok-1-0123456789" || again.Get("Authorization") != still.Get("Authorization") {
		t.Fatalf("runs %d, headers %v %v %v", runs(), first, again, still)
	}
	clock.t = clock.t.Add(2 * time.Minute)
	fresh, _, _ := h.current(ctx)
	if runs() != 2 || fresh.Get("Authorization") != "Bearer tok-2-0123456789" {
		t.Fatalf("after the TTL: runs %d, headers %v", runs(), fresh)
	}
	if got := h.o.Secrets.String("a tok-2-0123456789 b"); got != "a <redacted> b" {
		t.Fatalf("the token is not registered as a secret: %q", got)
	}
}

func TestHelperFailureHeld(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	secrets := redact.NewSet()
	secrets.Add("s3cret-in-stderr")
	h, runs := shHelper(t, `echo one >&2; echo "two s3cret-in-stderr" >&2; exit 2`, HelperOptions{Now: clock.now, Secrets: secrets})
	_, _, err := h.current(context.Background())
	f := fail.As(err)
	if f == nil || f.Code != fail.AuthRequired || f.Msg != "the headersCommand of srv (sh) failed: exit status 2" || f.Hint != "its stderr: one | two <redacted>" {
		t.Fatalf("err = %#v", err)
	}
	clock.t = clock.t.Add(helperFailHold - time.Second)
	if _, _, err := h.current(context.Background()); err != f || runs() != 1 {
		t.Fatalf("within the hold: err %v, runs %d", err, runs())
	}
	clock.t = clock.t.Add(2 * time.Second)
	if _, _, err := h.current(context.Background()); err == nil || runs() != 2 {
		t.Fatalf("after the hold: err %v, runs %d", err, runs())
	}
}

func TestHelperOutputBounded(t *testing.T) {
	// An endless writer is stopped at the bound, not read to its end.
	h, _ := shHelper(t, `while :; do echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; done`, HelperOptions{})
	_, _, err := h.current(context.Background())
	if f := fail.As(err); f == nil || !strings.HasSuffix(f.Msg, "failed: it printed more than 64 KiB: a helper prints a few headers or one token") {
		t.Fatalf("err = %v", err)
	}
}

func TestHelperContextEnds(t *testing.T) {
	h, _ := shHelper(t, `sleep 30`, HelperOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err := h.current(ctx)
	if err != context.DeadlineExceeded {
		t.Fatalf("err = %v, want the context's", err)
	}
	// The invocation's end is no verdict on the helper: it runs again.
	if h.err != nil {
		t.Fatalf("kept %v", h.err)
	}
}

func TestTail(t *testing.T) {
	tl := &tail{max: 16}
	for _, s := range []string{"first line\n", "abc\n", "de", "f\n\x1b[31mred\n"} {
		tl.Write([]byte(s))
	}
	if got := strings.Join(tl.lines(3), "|"); got != "def|red" {
		t.Fatalf("lines = %q (kept %q)", got, tl.buf)
	}
	tl.Write([]byte(strings.Repeat("z", 100)))
	if len(tl.buf) != 16 {
		t.Fatalf("kept %d bytes", len(tl.buf))
	}
}

// fakeBase answers each request with the next status, recording what it
// was sent.
type fakeBase struct {
	statuses []int
	got      []*http.Request
	bodies   []string
}

func (f *fakeBase) RoundTrip(req *http.Request) (*http.Response, error) {
	f.got = append(f.got, req)
	body := ""
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		body = string(b)
	}
	f.bodies = append(f.bodies, body)
	status := f.statuses[0]
	if len(f.statuses) > 1 {
		f.statuses = f.statuses[1:]
	}
	return httpx.Response(req, status, "text/plain", []byte("x")), nil
}

func TestHelperTransport(t *testing.T) {
	h, runs := shHelper(t, `printf '{"X-Token": "tok-%s-0123456789"}' "$(wc -l < runs | tr -d ' ')"`, HelperOptions{})
	base := &fakeBase{statuses: []int{200}}
	rt := h.WrapHTTP(base)

	// Another origin (a redirect's target) gets no headers, and the
	// helper does not run for it.
	req, _ := http.NewRequest("GET", "https://elsewhere.example/x", nil)
	rt.RoundTrip(req)
	if base.got[0].Header.Get("X-Token") != "" || runs() != 0 {
		t.Fatalf("another origin got %v; runs %d", base.got[0].Header, runs())
	}

	// A refusal runs the helper once more and retries, body and all.
	base.got, base.bodies, base.statuses = nil, nil, []int{401, 200}
	req, _ = http.NewRequest("POST", "https://mcp.example/mcp", strings.NewReader(`{"jsonrpc":"2.0"}`))
	resp, err := rt.RoundTrip(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("resp %v, err %v", resp, err)
	}
	if runs() != 2 || len(base.got) != 2 || base.got[0].Header.Get("X-Token") != "tok-1-0123456789" || base.got[1].Header.Get("X-Token") != "tok-2-0123456789" {
		t.Fatalf("runs %d, sent %d: %v", runs(), len(base.got), base.got)
	}
	if base.bodies[0] != base.bodies[1] || base.bodies[1] != `{"jsonrpc":"2.0"}` {
		t.Fatalf("bodies %q", base.bodies)
	}
	if req.Header.Get("X-Token") != "" {
		t.Fatal("the caller's request was changed")
	}

	// Refused again: the answer stands, after one more run only.
	base.got, base.statuses = nil, []int{403}
	req, _ = http.NewRequest("POST", "https://mcp.example/mcp", strings.NewReader("{}"))
	resp, _ = rt.RoundTrip(req)
	if resp.StatusCode != 403 || runs() != 3 || len(base.got) != 2 {
		t.Fatalf("status %d, runs %d, sent %d", resp.StatusCode, runs(), len(base.got))
	}
}

func TestHelperAgainOnce(t *testing.T) {
	// Requests refused with the same credential share one new run.
	h, runs := shHelper(t, `echo '{"X-Token": "tok-0123456789"}'`, HelperOptions{})
	ctx := context.Background()
	_, gen, _ := h.current(ctx)
	h.again(ctx, gen)
	h.again(ctx, gen)
	if runs() != 2 {
		t.Fatalf("runs %d, want 2", runs())
	}
}

func TestHelperHugeOutputMemory(t *testing.T) {
	// 100 MB on stdout costs the bound, not the output: the command is
	// stopped at 64 KiB and nothing past it is kept.
	h, _ := shHelper(t, `head -c 100000000 /dev/zero`, HelperOptions{})
	var err error
	n := memtest.Allocated(func() { _, _, err = h.current(context.Background()) })
	if f := fail.As(err); f == nil || !strings.Contains(f.Msg, "it printed more than 64 KiB") {
		t.Fatalf("err = %v", err)
	}
	if n > 4<<20 {
		t.Fatalf("a 100 MB output allocated %d bytes", n)
	}
}

func TestStopHelpers(t *testing.T) {
	// The invocation's end stops a helper whose request gave up on it.
	h, _ := shHelper(t, `sleep 30 & wait`, HelperOptions{})
	done := make(chan error, 1)
	go func() { _, _, err := h.current(context.Background()); done <- err }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		helpers.mu.Lock()
		n := len(helpers.running)
		helpers.mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	StopHelpers()
	select {
	case err := <-done:
		if fail.As(err) == nil {
			t.Fatalf("err = %v, want the helper's failure", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the helper was not stopped")
	}
}
