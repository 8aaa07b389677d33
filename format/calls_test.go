package format

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// A task's line keeps a server's message on its line, escapes stripped.
func TestTaskLines(t *testing.T) {
	if got, want := TaskLine("t1", "working", "half\nway\x1b[31m"), "t1  working  half way\n"; got != want {
		t.Errorf("TaskLine = %q, want %q", got, want)
	}
	doc := `{"tasks":[{"taskId":"a","status":"completed"},{"taskId":"b","status":"failed","statusMessage":"boom"}]}`
	if got, want := TaskLines([]byte(doc)), "a  completed\nb  failed  boom\n"; got != want {
		t.Errorf("TaskLines = %q, want %q", got, want)
	}
}

// A --batch record is the result's JSON on one line, the query applied.
func TestLine(t *testing.T) {
	got, err := Line(nil, []byte("{\n \"content\": [{\"type\": \"text\", \"text\": \"hi\"}]\n}"),
		Options{Mode: ModeText, Kind: KindCallTool, Query: "content.0.text", MaxBytes: 1 << 20, MaxLines: 100})
	if err != nil || string(got) != `"hi"` {
		t.Fatalf("Line = %s, %v", got, err)
	}
}

// The summary says how mcpc reached the server, the URL's secrets hidden.
func TestSummaryTransport(t *testing.T) {
	r := &mcp.InitializeResult{ProtocolVersion: "2025-11-25", ServerInfo: &mcp.Implementation{Name: "s", Version: "1"}}
	for _, c := range []struct {
		url  string
		sse  bool
		want string
	}{
		{"", false, "stdio"},
		{"https://u:secret@example.com/mcp", false, "Streamable HTTP, https://REDACTED@example.com/mcp"},
		{"https://example.com/sse", true, "HTTP+SSE, https://example.com/sse"},
	} {
		s := Summary(r, []string{"tools"}, c.url, c.sse)
		if !strings.HasPrefix(s.Transport, c.want) || strings.Contains(s.Transport, "secret") || s.Name != "s" || s.Version != "1" {
			t.Errorf("%s: %+v", c.url, s)
		}
	}
}

// ping's line and JSON: the round trip to the hundredth of a millisecond.
func TestPing(t *testing.T) {
	p := NewPing("every\x1b[2Jthing", "2025-11-25", 1234567*time.Nanosecond)
	if got, want := p.Text(), "everything answered in 1.23 ms (MCP 2025-11-25)\n"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	b, err := json.Marshal(p)
	if want := `{"server":"every\u001b[2Jthing","revision":"2025-11-25","ms":1.23}`; err != nil || string(b) != want {
		t.Errorf("JSON = %s, %v, want %s", b, err, want)
	}
}

// The task list is read where it lies: gjson.GetBytes copied the list
// before the first line was written.
func TestTaskLinesReadsInPlace(t *testing.T) {
	pad := strings.Repeat("x", 10<<10)
	doc := memtest.List("tasks", 400, func(i int) string { // about 4 MB
		return fmt.Sprintf(`{"taskId":"t-%d","status":"working","_meta":{"pad":%q}}`, i, pad)
	})
	var got string
	n := memtest.Allocated(func() { got = TaskLines(doc) })
	if !strings.HasPrefix(got, "t-0  working\nt-1  working\n") || strings.Count(got, "\n") != 400 {
		t.Errorf("TaskLines = %.60q…", got)
	}
	t.Logf("the lines of a %d-byte task list: %d bytes allocated", len(doc), n)
	if limit := uint64(len(doc) / 10); n > limit {
		t.Errorf("the lines of a %d-byte task list allocated %d bytes, want at most %d", len(doc), n, limit)
	}
}

// A 2025 server answers tasks/cancel with the task, a 2026-07-28 one with
// an empty result: the line says what is known, escapes stripped.
func TestCancelLine(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`{"taskId":"t1","status":"cancelled","statusMessage":"by\nrequest"}`, "t1  cancelled  by request\n"},
		{`{}`, "t1 cancel requested\n"},
		{``, "t1 cancel requested\n"},
	} {
		if got := CancelLine("t1", []byte(c.raw)); got != c.want {
			t.Errorf("CancelLine(%s) = %q, want %q", c.raw, got, c.want)
		}
	}
	if got := CancelLine("t\x1b[31m2", []byte(`{}`)); got != "t2 cancel requested\n" {
		t.Errorf("escape not stripped: %q", got)
	}
}
