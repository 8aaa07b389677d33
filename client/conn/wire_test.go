package conn

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/listkind"
	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// bigResponse is a tools/call response whose text is n bytes, with the
// raw result it carries.
func bigResponse(id, n int) (msg, result []byte) {
	result = []byte(`{"content":[{"type":"text","text":"` + strings.Repeat("x", n) + `"}]}`)
	msg = []byte(`{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"result":` + string(result) + "}")
	return msg, result
}

// pendingCall is a wire waiting for the answer to tools/call id.
func pendingCall(t *testing.T, id int64) *wire {
	t.Helper()
	w := newWire()
	jid, err := jsonrpc.MakeID(float64(id))
	if err != nil {
		t.Fatal(err)
	}
	req := &jsonrpc.Request{ID: jid, Method: "tools/call", Params: json.RawMessage(`{"name":"huge"}`)}
	if resp, err := w.Outgoing(req); resp != nil || err != nil {
		t.Fatalf("outgoing = %v, %v", resp, err)
	}
	return w
}

func checkStubbed(t *testing.T, w *wire, msgs []jsonrpc.Message, result []byte) {
	t.Helper()
	if len(msgs) != 1 {
		t.Fatalf("the SDK read %d messages, want 1", len(msgs))
	}
	if got := string(msgs[0].(*jsonrpc.Response).Result); got != mustStub(t, "tools/call") {
		t.Errorf("the SDK decoded %.80q, want the stub", got)
	}
	rs := w.Results("tools/call")
	if len(rs) != 1 || !bytes.Equal(rs[0], result) {
		t.Errorf("the wire kept %d results, want the raw one", len(rs))
	}
}

// A large result is kept raw and uncopied, and the SDK decodes a stub in
// its place: the wire's part of reading a large message costs next to
// nothing (the transport's readers bound the rest, see
// transport.TestStdioLargeResult).
func TestFrameKeepsLargeResult(t *testing.T) {
	msg, result := bigResponse(7, 20<<20)
	w := pendingCall(t, 7)
	var out []byte
	n := memtest.Allocated(func() { out = w.Frame(msg) })
	m, err := jsonrpc.DecodeMessage(out)
	if err != nil {
		t.Fatal(err)
	}
	w.Incoming(m)
	checkStubbed(t, w, []jsonrpc.Message{m}, result)
	if n > 64<<10 {
		t.Errorf("framing a %d-byte message allocated %d bytes, want at most 64 KiB", len(msg), n)
	}
}

// Small messages, other methods and results that ask for input pass
// through unchanged.
func TestFramePassesOthers(t *testing.T) {
	big := strings.Repeat("x", transport.BigMessage)
	w := pendingCall(t, 1)
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"text":"` + big + `"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","text":"` + big + `"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"text":"` + big + `"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"` + big + `"}}`,
	} {
		if got := w.Frame([]byte(m)); string(got) != m {
			t.Errorf("frame changed %.80q", m)
		}
	}
}

// Skip hands log and progress notifications over raw, with their params
// exactly as sent, and leaves every other message to the SDK.
func TestWireSkip(t *testing.T) {
	w := newWire()
	var got []string
	w.deliver = func(method string, params []byte) bool {
		got = append(got, method+" "+string(params))
		return true
	}
	active := 0
	w.activity = func() { active++ }
	for _, c := range []struct {
		line string
		skip bool
	}{
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"x"}}`, true},
		{`{"method":"notifications/progress", "params": {"progressToken":1,"progress":2} ,"jsonrpc":"2.0"}`, true},
		// Not notifications, another method, another version, bad params.
		{`{"jsonrpc":"2.0","id":1,"method":"notifications/message","params":{}}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`, false},
		{`{"jsonrpc":"1.0","method":"notifications/message","params":{}}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":[1]}`, false},
		{`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`, false},
	} {
		if skip := w.Skip([]byte(c.line)); skip != c.skip {
			t.Errorf("Skip(%s) = %v, want %v", c.line, skip, c.skip)
		}
	}
	want := []string{
		`notifications/message {"level":"debug","data":"x"}`,
		`notifications/progress {"progressToken":1,"progress":2}`,
	}
	if !slices.Equal(got, want) || active != 2 {
		t.Errorf("delivered %q (activity %d), want %q (2)", got, active, want)
	}
	// Under --verbose each message is traced: none is skipped.
	w.verbose = func(string) {}
	if w.Skip([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`)) {
		t.Error("Skip dropped a message under --verbose")
	}
}

// BenchmarkWireSkip is the cost of one log message of a flood that
// --log-level hides: recognised and dropped from the raw line.
func BenchmarkWireSkip(b *testing.B) {
	w := newWire()
	w.deliver = func(string, []byte) bool { return true }
	line := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","logger":"flood","data":"message 000000001 of the flood, padded to look like a debug line of a busy server: ......"}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if !w.Skip(line) {
			b.Fatal("not skipped")
		}
	}
}

// A list page cut down for the SDK keeps the items asked for and every
// other field as it came (the cursor, so the SDK still pages); the raw
// page is kept whole for mcpc.
func TestListForSDK(t *testing.T) {
	w := newWire()
	w.keep = func(method, name string) bool { return method == "tools/list" && name == "b" }
	page := json.RawMessage(`{"tools":[{"name":"a","inputSchema":{}},{"name":"b","inputSchema":{"type":"object"}},{"name":"c"}],"nextCursor":"2","ttlMs":5}`)
	if got, want := string(w.listForSDK("tools/list", page)), `{"tools":[{"name":"b","inputSchema":{"type":"object"}}],"nextCursor":"2","ttlMs":5}`; got != want {
		t.Errorf("tools/list for the SDK = %s, want %s", got, want)
	}
	if got := string(w.listForSDK("prompts/list", json.RawMessage(`{"prompts":[{"name":"b"},{"name":"x"}]}`))); got != `{"prompts":[]}` {
		t.Errorf("prompts/list for the SDK = %s, want none kept", got)
	}
	if got := string(w.listForSDK("tools/call", page)); got != string(page) {
		t.Errorf("a result that is no list changed: %s", got)
	}
	w.keep = nil
	if got := string(w.listForSDK("tools/list", page)); got != string(page) {
		t.Errorf("without keep the page changed: %s", got)
	}
}

// The cache's names for lists and what a list_changed makes stale come
// from the one table: a resources list_changed makes the resource
// templates stale too (both are declared by the resources capability).
func TestListCachesFromTheTable(t *testing.T) {
	want := map[string][]string{
		"notifications/tools/list_changed":     {"tools-list"},
		"notifications/resources/list_changed": {"resources-list", "templates-list"},
		"notifications/prompts/list_changed":   {"prompts-list"},
	}
	if !reflect.DeepEqual(lists().changed, want) {
		t.Errorf("lists().changed = %v, want %v", lists().changed, want)
	}
	for _, k := range listkind.Kinds {
		if lists().cacheable[k.Method] != k.Word+"-list" || lists().items[k.Method] != k.Key {
			t.Errorf("%s: cached as %q, items %q", k.Method, lists().cacheable[k.Method], lists().items[k.Method])
		}
	}
	if lists().cacheable["resources/read"] != "resources-read" {
		t.Errorf("resources/read cached as %q", lists().cacheable["resources/read"])
	}
}

func mustStub(t *testing.T, method string) string {
	t.Helper()
	s, ok := bigResultStubs(method)
	if !ok {
		t.Fatalf("no stub for %s", method)
	}
	return s
}
