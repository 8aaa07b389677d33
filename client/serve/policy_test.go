package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/internal/redact"
)

// linkSent is the holder's side of a link in a test: what the link
// sends on, line by line.
func linkSent(t *testing.T, c net.Conn) <-chan map[string]any {
	t.Helper()
	got := make(chan map[string]any, 16)
	go func() {
		defer close(got)
		sc := bufio.NewScanner(c)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the link sent %q: %v", sc.Text(), err)
				return
			}
			got <- m
		}
	}()
	return got
}

func call(id int64, method, params string) *jsonrpc.Request {
	rid, _ := jsonrpc.MakeID(float64(id))
	return &jsonrpc.Request{ID: rid, Method: method, Params: json.RawMessage(params)}
}

func receive(t *testing.T, l *Link) *jsonrpc.Response {
	t.Helper()
	m, err := l.Receive()
	if err != nil {
		t.Fatal(err)
	}
	r, ok := m.(*jsonrpc.Response)
	if !ok {
		t.Fatalf("got %T, want a response", m)
	}
	return r
}

func wantRefusal(t *testing.T, l *Link, id int64, tool, why string) {
	t.Helper()
	if err := l.Send(call(id, "tools/call", `{"name":"`+tool+`","arguments":{}}`)); err != nil {
		t.Fatal(err)
	}
	r := receive(t, l)
	want := `unknown tool "` + tool + `": mcpc serve does not lend it (` + why + `)`
	if r.ID.Raw() != id || r.Error == nil || r.Error.Error() != want {
		t.Fatalf("call of %s: got %v, want the error %q", tool, r.Error, want)
	}
	if e, ok := r.Error.(*jsonrpc.Error); !ok || e.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("call of %s: %#v, want code %d", tool, r.Error, jsonrpc.CodeInvalidParams)
	}
}

// A call the policy refuses is answered on the link and never reaches
// the holder; read-only hints are learned from the tools/list answer
// that passes, which loses the tools refused; every request is logged.
func TestLinkPolicy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calls.jsonl")
	secrets := redact.NewSet()
	secrets.Add("s3cret-argument")
	log, err := OpenCallLog(path, secrets, true)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	near, far := net.Pipe()
	got := linkSent(t, far)
	l := newLink(near, 1<<20, rules{policy: &Policy{ReadOnly: true, Deny: []string{"t__del*"}, Log: log},
		server: "t", downstream: "stdio", hidden: func(tool string) string {
			if tool == "fail" {
				return `excludeTools "fail"`
			}
			return ""
		}})
	defer l.Close()

	// Not listed yet: the safe way is to refuse.
	wantRefusal(t, l, 1, "echo", "--read-only, and serve has not seen its annotations: list the tools first")

	if err := l.Send(call(2, "tools/list", `{}`)); err != nil {
		t.Fatal(err)
	}
	if m := <-got; m["method"] != "tools/list" {
		t.Fatalf("the holder got %v first, want the tools/list (the refused call is never sent)", m)
	}
	far.Write([]byte(`{"jsonrpc":"2.0","id":2,"result":{"tools":[` +
		`{"name":"echo","annotations":{"readOnlyHint":true}},{"name":"sleep"},` +
		`{"name":"delete_all","annotations":{"readOnlyHint":true}},{"name":"fail","annotations":{"readOnlyHint":true}},` +
		`{"name":"write","annotations":{"readOnlyHint":false}}],"nextCursor":"c"}}` + "\n"))
	if r := receive(t, l); string(r.Result) != `{"nextCursor":"c","tools":[{"name":"echo","annotations":{"readOnlyHint":true}}]}` {
		t.Fatalf("the list: got %s", r.Result)
	}

	wantRefusal(t, l, 3, "sleep", "--read-only, and it is not annotated readOnlyHint: true")
	wantRefusal(t, l, 4, "write", "--read-only, and it is not annotated readOnlyHint: true")
	wantRefusal(t, l, 5, "delete_all", `--deny "t__del*"`)
	if err := l.Send(call(6, "tools/call", `{"name":"fail"}`)); err != nil {
		t.Fatal(err)
	}
	if r := receive(t, l); r.Error == nil || r.Error.Error() != `unknown tool "fail": the server's entry does not lend it (excludeTools "fail")` {
		t.Fatalf("the entry's filter comes first: got %v", r.Error)
	}

	if err := l.Send(call(7, "tools/call", `{"name":"echo","arguments":{"text":"s3cret-argument"}}`)); err != nil {
		t.Fatal(err)
	}
	if m := <-got; m["method"] != "tools/call" {
		t.Fatalf("the holder got %v, want the call of echo", m)
	}
	far.Write([]byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":true}}` + "\n"))
	receive(t, l)

	lines := readLog(t, path)
	want := []string{
		`stdio t tools/call echo refused`, `stdio t tools/list  ok`, `stdio t tools/call sleep refused`,
		`stdio t tools/call write refused`, `stdio t tools/call delete_all refused`, `stdio t tools/call fail refused`,
		`stdio t tools/call echo tool-error`,
	}
	if len(lines) != len(want) {
		t.Fatalf("the log has %d lines, want %d: %v", len(lines), len(want), lines)
	}
	for i, ln := range lines {
		if s := ln.Downstream + " " + ln.Upstream + " " + ln.Method + " " + ln.Name + " " + ln.Outcome; s != want[i] {
			t.Errorf("line %d: %s, want %s", i+1, s, want[i])
		}
	}
	if a := string(lines[6].Arguments); a != `{"text":"<redacted>"}` {
		t.Errorf("the arguments logged: %s", a)
	}
	if lines[2].Error != `unknown tool "sleep": mcpc serve does not lend it (--read-only, and it is not annotated readOnlyHint: true)` {
		t.Errorf("a refusal's line says %q", lines[2].Error)
	}
}

// A request the client cancels, and one left when the link ends, are
// logged so.
func TestLinkLogsUnanswered(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calls.jsonl")
	log, err := OpenCallLog(path, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	near, far := net.Pipe()
	got := linkSent(t, far)
	l := newLink(near, 1<<20, rules{policy: &Policy{Log: log}, server: "t", downstream: "http"})
	for _, m := range []jsonrpc.Message{call(1, "tools/call", `{"name":"sleep","arguments":{"ms":1}}`), call(2, "resources/read", `{"uri":"test://x"}`),
		&jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":1}`)}} {
		if err := l.Send(m); err != nil {
			t.Fatal(err)
		}
		<-got
	}
	l.Close()
	for _, err := l.Receive(); err == nil; _, err = l.Receive() {
	}
	lines := readLog(t, path)
	if len(lines) != 2 || lines[0].Outcome != "cancelled" || lines[0].Name != "sleep" || lines[0].Arguments != nil ||
		lines[1].Outcome != "unanswered" || lines[1].Name != "test://x" || lines[1].Downstream != "http" {
		t.Fatalf("the log: %+v", lines)
	}
}

func readLog(t *testing.T, path string) []logLine {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []logLine
	for _, s := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var ln logLine
		if err := json.Unmarshal([]byte(s), &ln); err != nil {
			t.Fatalf("a line that is not JSON: %q", s)
		}
		lines = append(lines, ln)
	}
	return lines
}

// A pattern matches SERVER__TOOL, and TOOL when one server is lent.
func TestPolicyRefuses(t *testing.T) {
	for _, c := range []struct {
		p          *Policy
		tool, want string
	}{
		{&Policy{Deny: []string{"delete_*"}}, "delete_x", `--deny "delete_*"`},
		{&Policy{Deny: []string{"gh__delete_*"}}, "delete_x", `--deny "gh__delete_*"`},
		{&Policy{Deny: []string{"delete_*"}, Aggregated: true}, "delete_x", ""},
		{&Policy{Deny: []string{"*__delete_*"}, Aggregated: true}, "delete_x", `--deny "*__delete_*"`},
		{&Policy{Allow: []string{"read_*"}}, "read_x", ""},
		{&Policy{Allow: []string{"read_*"}}, "write_x", "no --allow pattern matches"},
		{&Policy{Allow: []string{"read_*"}, Aggregated: true}, "read_x", "no --allow pattern matches"},
		{&Policy{Allow: []string{"gh__*"}, Deny: []string{"*_x"}}, "read_x", `--deny "*_x"`},
		{&Policy{}, "anything", ""},
	} {
		if got := c.p.refuses("gh", c.tool); got != c.want {
			t.Errorf("allow %q deny %q aggregated %v refuses %s: %q, want %q", c.p.Allow, c.p.Deny, c.p.Aggregated, c.tool, got, c.want)
		}
	}
	var none *Policy
	if none.refuses("gh", "x") != "" || none.active() {
		t.Error("no policy refuses a tool")
	}
}

// A line is bounded whatever the client sends, and the lines of two
// logs on one file (two serve processes) never interleave.
func TestCallLogBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calls.jsonl")
	var wg sync.WaitGroup
	for range 2 {
		log, err := OpenCallLog(path, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		defer log.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			huge := strings.Repeat("é", 100<<10)
			for range 50 {
				log.write(huge, "t", &pendingCall{method: "tools/call", name: huge, args: json.RawMessage(`{"s":"` + huge + `"}`)}, "ok", 0, huge, 1)
			}
		}()
	}
	wg.Wait()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("the log's mode is %v, want 0600", st.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 100 {
		t.Fatalf("%d lines, want 100", len(lines))
	}
	for _, s := range lines {
		var ln logLine
		if len(s) >= MaxLogLine || json.Unmarshal([]byte(s), &ln) != nil || ln.Arguments != nil ||
			ln.ArgumentsLeftOut == 0 || !strings.HasSuffix(ln.Name, "é…") {
			t.Fatalf("a line of %d bytes: %.200s", len(s), s)
		}
	}
}

func TestDownstreamOf(t *testing.T) {
	ctx := context.Background()
	httpCtx := context.WithValue(ctx, http.ServerContextKey, &http.Server{})
	for _, c := range []struct {
		ctx  context.Context
		want string
	}{{ctx, "stdio"}, {httpCtx, "http"}, {WithDownstream(httpCtx, "http:1a2b3c4d"), "http:1a2b3c4d"}} {
		if got := downstreamOf(c.ctx); got != c.want {
			t.Errorf("downstreamOf: %q, want %q", got, c.want)
		}
	}
}

// A tools/call that names its tool by more than one "name" (a second one
// wins in most decoders) or by another case of it (Go's decoder is
// case-blind) is refused: what serve checks is what the server runs.
func TestLinkRefusesAmbiguousNames(t *testing.T) {
	near, far := net.Pipe()
	got := linkSent(t, far)
	l := newLink(near, 1<<20, rules{policy: &Policy{Deny: []string{"delete_*"}}, server: "t", downstream: "stdio"})
	defer l.Close()
	const want = `a tools/call names its tool once, by "name": serve does not pass on one that names it otherwise`
	for i, params := range []string{`{"name":"search","name":"delete_repo"}`, `{"Name":"delete_repo"}`, `{"name":"search","NAME":"delete_repo"}`, `{}`} {
		if err := l.Send(call(int64(i+1), "tools/call", params)); err != nil {
			t.Fatal(err)
		}
		if r := receive(t, l); r.Error == nil || r.Error.Error() != want {
			t.Fatalf("%s: got %v", params, r.Error)
		}
	}
	if err := l.Send(call(9, "tools/call", `{"name":"search"}`)); err != nil {
		t.Fatal(err)
	}
	if m := <-got; m["method"] != "tools/call" || m["id"] != float64(9) {
		t.Fatalf("the holder got %v first, want the one plain call", m)
	}
}
