package transport

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/redact"
)

func testRecorder(t *testing.T, o RecordOptions) (*Recorder, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.jsonl")
	o.Client = "mcpc test"
	o.Now = func() time.Time { return time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC) }
	r, err := CreateRecorder(path, o)
	if err != nil {
		t.Fatal(err)
	}
	return r, path
}

func readRecording(t *testing.T, r *Recorder, path string) []string {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the recording is in place before it was closed")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := st.Mode().Perm(); m != 0o600 {
		t.Errorf("mode %v, want 0600", m)
	}
	data, _ := os.ReadFile(path)
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func TestRecorderLines(t *testing.T) {
	secrets := redact.NewSet()
	secrets.Add("tok-0123456789", "987654321")
	r, path := testRecorder(t, RecordOptions{Secrets: secrets, MaxMessage: 100})
	c := r.Conn("server at https://example.test/mcp")
	c.message("out", "stdio", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"token":"tok-0123456789","s":"<&>"}}`))
	c.message("in", "stdio", []byte(`{"jsonrpc":"2.0","id":1,"result":{"n":987654321}}`))
	c.message("in", "stdio", []byte(`not json tok-0123456789`))
	c.message("out", "stdio", []byte(`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"a":"`+strings.Repeat("x", 200)+`"}}`))
	req := &http.Request{Method: "POST", URL: &url.URL{Scheme: "https", Host: "example.test", Path: "/mcp", RawQuery: "key=v"},
		Header: http.Header{"Authorization": {"Bearer tok-0123456789"}, "Mcp-Method": {"tools/call"}, "X-Other": {"no"}, "Cookie": {"a=b"}}}
	c.request("http", req, nil)
	c.response("http", &http.Response{StatusCode: 401, Header: http.Header{"Www-Authenticate": {`Bearer error="invalid_token"`}}})
	got := readRecording(t, r, path)
	want := []string{
		`{"mcpc-record":1,"mcpc":"mcpc test","started":"2026-07-28T12:00:00Z"}`,
		`{"t":"2026-07-28T12:00:00Z","conn":1,"server":"server at https://example.test/mcp"}`,
		`{"t":"2026-07-28T12:00:00Z","conn":1,"dir":"out","transport":"stdio","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"token":"<redacted>","s":"<&>"}}}`,
		// The secret was a number: the message, no longer JSON, is text.
		`{"t":"2026-07-28T12:00:00Z","conn":1,"dir":"in","transport":"stdio","text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"n\":<redacted>}}"}`,
		`{"t":"2026-07-28T12:00:00Z","conn":1,"dir":"in","transport":"stdio","text":"not json <redacted>"}`,
		`{"t":"2026-07-28T12:00:00Z","conn":1,"dir":"out","transport":"stdio","omitted":{"bytes":266,"method":"tools/call","id":"x"}}`,
		`{"t":"2026-07-28T12:00:00Z","conn":1,"dir":"out","transport":"http","http":{"method":"POST","url":"https://example.test/mcp?key=REDACTED","headers":{"Authorization":"<redacted>","Cookie":"<redacted>","Mcp-Method":"tools/call"}}}`,
		`{"t":"2026-07-28T12:00:00Z","conn":1,"dir":"in","transport":"http","http":{"status":401,"headers":{"Www-Authenticate":"Bearer error=\"invalid_token\""}}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("recording:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestRecorderCap(t *testing.T) {
	r, path := testRecorder(t, RecordOptions{MaxFile: 2048})
	c := r.Conn("s")
	msg := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("y", 100) + `"}}`)
	for range 100 {
		c.message("in", "stdio", msg)
	}
	got := readRecording(t, r, path)
	data, _ := os.ReadFile(path)
	if len(data) > 2048 {
		t.Errorf("the recording is %d bytes, over its cap of 2048", len(data))
	}
	last := got[len(got)-1]
	if want := `{"t":"2026-07-28T12:00:00Z","conn":1,"note":"the recording reached its size cap of 2KiB (--record-max); nothing after this line was recorded"}`; last != want {
		t.Errorf("last line %s, want %s", last, want)
	}
	if n := len(got); n < 5 || n > 20 {
		t.Errorf("%d lines", n)
	}
}

func TestRecorderBadPath(t *testing.T) {
	_, err := CreateRecorder(filepath.Join(t.TempDir(), "missing", "r.jsonl"), RecordOptions{})
	if err == nil || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("err = %v", err)
	}
}
