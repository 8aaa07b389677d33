package rawmsg

import (
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/memtest"
)

func TestProgress(t *testing.T) {
	for _, c := range []struct {
		params string
		want   *mcp.ProgressNotificationParams
	}{
		{`{"progressToken":"t","progress":2,"total":5,"message":"two"}`, &mcp.ProgressNotificationParams{ProgressToken: "t", Progress: 2, Total: 5, Message: "two"}},
		{`{"progressToken":7,"progress":0.5}`, &mcp.ProgressNotificationParams{ProgressToken: float64(7), Progress: 0.5}},
		// Not well formed: the SDK is left to say so.
		{`{"progressToken":"t","progress":"2"}`, nil},
		{`{"progressToken":"t","progress":1,"message":3}`, nil},
		{`{"progress":1}`, nil},
	} {
		got, ok := Progress([]byte(c.params))
		if ok != (c.want != nil) || ok && !reflect.DeepEqual(got, c.want) {
			t.Errorf("Progress(%s) = %+v, %v; want %+v", c.params, got, ok, c.want)
		}
	}
}

func TestNotification(t *testing.T) {
	for _, c := range []struct {
		line, params string
	}{
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"a":1}}`, `{"a":1}`},
		{`{"params": {"b":[1]} ,"method":"m","jsonrpc":"2.0"}`, `{"b":[1]}`},
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`, ""},
		{`{"jsonrpc":"2.0","method":"m","params":[1]}`, ""},
		{`{"jsonrpc":"2.0","method":"m","params":{},"x":1}`, ""},
	} {
		p, ok := Parse([]byte(c.line)).Notification([]byte(c.line))
		if ok != (c.params != "") || string(p) != c.params {
			t.Errorf("Notification(%s) = %s, %v; want %s", c.line, p, ok, c.params)
		}
	}
}

// Progress reads its params where they lie (gjson.ParseBytes copied them
// whole) and clones only the strings it keeps, since the line they were
// read from may be reused.
func TestProgressReadsInPlace(t *testing.T) {
	params := []byte(`{"_meta":{"pad":"` + strings.Repeat("x", 4<<20) + `"},"progressToken":"tok","progress":1,"message":"half"}`)
	var p *mcp.ProgressNotificationParams
	var ok bool
	n := memtest.Allocated(func() { p, ok = Progress(params) })
	t.Logf("%d-byte params: %d bytes allocated", len(params), n)
	if limit := uint64(len(params) / 10); n > limit {
		t.Errorf("%d-byte params allocated %d bytes, want at most %d", len(params), n, limit)
	}
	copy(params[len(params)-30:], strings.Repeat("?", 30)) // the line reused
	if want := (&mcp.ProgressNotificationParams{ProgressToken: "tok", Progress: 1, Message: "half"}); !ok || !reflect.DeepEqual(p, want) {
		t.Errorf("Progress = %+v, %v; want %+v", p, ok, want)
	}
}

// Within is the bytes a result is, where they lie; nil for a value a
// modifier made.
func TestWithin(t *testing.T) {
	data := []byte(` {"a":{"b":[1, 2]},"c":"d"}`)
	for path, want := range map[string]string{"a": `{"b":[1, 2]}`, "a.b.1": "2", "c": `"d"`, "@this": `{"a":{"b":[1, 2]},"c":"d"}`, "a|@ugly": "", "x": ""} {
		got := Within(data, View(data).Get(path))
		if string(got) != want || want == "" && got != nil {
			t.Errorf("Within(%s) = %q, want %q", path, got, want)
		}
	}
}

// TestStringBytes: a string with no escapes is its bytes where it lies in
// the message; one with escapes, its unescaped value.
func TestStringBytes(t *testing.T) {
	data := []byte(`{"a": "plain text", "b": "two\nlines"}`)
	v := View(data)
	a := StringBytes(data, v.Get("a"))
	if string(a) != "plain text" || &a[0] != &data[7] {
		t.Errorf("a: %q, not where it lies", a)
	}
	if b := StringBytes(data, v.Get("b")); string(b) != "two\nlines" {
		t.Errorf("b: %q", b)
	}
}
