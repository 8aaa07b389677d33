package commands

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// runGrep needs only its options and a runIO: one server searched, one
// unreachable (a note), the matches printed in text, at most maxLines.
func TestRunGrep(t *testing.T) {
	f := &fakeServer{
		init: &mcp.InitializeResult{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}},
		lists: map[string]json.RawMessage{"tools": json.RawMessage(`{"tools":[
			{"name":"echo","description":"Echoes back"},{"name":"add","description":"Adds"},{"name":"echo2","title":"Echo again"}]}`)},
	}
	o := grepOptions{pattern: client.Pattern{Re: regexp.MustCompile("(?i)echo")}, parallel: 1, maxLines: 1, targets: []client.Target{
		{Target: config.Target{Name: "up", Entry: &config.Entry{}}},
		{Target: config.Target{Name: "down", Entry: &config.Entry{}}},
	}}
	var stdout, stderr strings.Builder
	rio := runIO{
		stderr: &stderr,
		write:  func(b []byte) error { stdout.Write(b); return nil },
		each: func(ctx context.Context, _ []client.Target, _ int, visit visitFunc) {
			visit(ctx, 0, time.Now(), &fakeSession{f: f, name: "up"}, nil)
			visit(ctx, 1, time.Now(), nil, fail.New(fail.Connection, "", "cannot reach down"))
		},
	}
	if err := runGrep(context.Background(), rio, o); err != nil {
		t.Fatal(err)
	}
	if want := "up  tool  echo  Echoes back\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
	if want := "mcpc: note: down not searched: cannot reach down\nmcpc: note: 1 more matches not shown (--max-lines 1)\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}
