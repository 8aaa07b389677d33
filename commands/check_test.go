package commands

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
)

// runCheck needs only its options and a runIO: one server up with two
// tools, one unreachable, one untrusted and skipped; the rows are printed,
// the failure noted in text mode, and the most severe is the error.
func TestRunCheck(t *testing.T) {
	f := &fakeServer{
		init:  &mcp.InitializeResult{ProtocolVersion: "2025-11-25", Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}},
		tools: []*mcp.Tool{{Name: "a"}, {Name: "b"}},
	}
	o := checkOptions{parallel: 2, text: true, targets: []client.Target{
		{Target: config.Target{Name: "up", Entry: &config.Entry{}}, Transport: "stdio"},
		{Target: config.Target{Name: "down", Entry: &config.Entry{}}, Transport: "http"},
		{Target: config.Target{Name: "odd", Skip: "untrusted"}, Transport: "stdio"},
	}}
	var printed []byte
	var stderr strings.Builder
	rio := runIO{
		stderr: &stderr,
		print: func(kind format.Kind, v any) error {
			if kind != format.KindServerCheck {
				t.Errorf("printed as %v", kind)
			}
			var err error
			printed, err = json.Marshal(v)
			return err
		},
		each: func(ctx context.Context, targets []client.Target, parallel int, visit visitFunc) {
			if len(targets) != 3 || parallel != 2 {
				t.Errorf("each got %d targets, parallel %d", len(targets), parallel)
			}
			visit(ctx, 0, time.Now(), &fakeSession{f: f, name: "up"}, nil)
			visit(ctx, 1, time.Now(), nil, fail.New(fail.Connection, "is it running?", "cannot reach down"))
		},
	}
	err := runCheck(context.Background(), rio, o)
	if fail.CodeOf(err) != fail.Connection || err.Error() != "1 of 3 servers are not ok; the most severe: down (unreachable)" || fail.As(err).Hint != "is it running?" {
		t.Errorf("error %v", err)
	}
	if want := "mcpc: note: down: cannot reach down\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	var doc struct {
		Servers []map[string]any `json:"servers"`
	}
	if err := json.Unmarshal(printed, &doc); err != nil || len(doc.Servers) != 3 {
		t.Fatalf("printed %s", printed)
	}
	for i, want := range []string{
		`{"name":"up","revision":"2025-11-25","status":"ok","tools":2,"transport":"stdio"}`,
		`{"error":"cannot reach down","name":"down","status":"unreachable","transport":"http"}`,
		`{"name":"odd","status":"untrusted","transport":"stdio"}`,
	} {
		row := doc.Servers[i]
		if _, ok := row["ms"]; ok != (i < 2) {
			t.Errorf("row %d: ms %v", i, row["ms"])
		}
		delete(row, "ms")
		// A map's keys marshal sorted.
		if b, _ := json.Marshal(row); string(b) != want {
			t.Errorf("row %d: %s, want %s", i, b, want)
		}
	}
}

// A server that quotes a secret back in its error must not put it on
// stdout, which (unlike stderr) is not written through the redaction.
func TestRunCheckRedactsEchoedSecret(t *testing.T) {
	const token = "tok-echoed-4f2a9c"
	set := redaction.NewSet()
	set.Add(token)
	ctx := redaction.NewContext(context.Background(), set)
	var printed []byte
	rio := runIO{
		stderr: io.Discard,
		print: func(_ format.Kind, v any) error {
			var err error
			printed, err = json.Marshal(v)
			return err
		},
		each: func(ctx context.Context, targets []client.Target, parallel int, visit visitFunc) {
			visit(ctx, 0, time.Now(), nil, fail.New(fail.AuthFailed, "not "+token, "server said: bad token "+token))
		},
	}
	o := checkOptions{parallel: 1, targets: []client.Target{{Target: config.Target{Name: "s", Entry: &config.Entry{}}, Transport: "http"}}}
	_ = runCheck(ctx, rio, o)
	if strings.Contains(string(printed), token) || !strings.Contains(string(printed), `server said: bad token \u003credacted\u003e`) {
		t.Errorf("stdout rows %s", printed)
	}
}
