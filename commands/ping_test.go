package commands

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
)

// runPing names the server as the entry shows it (a URL redacted), prints
// a line or format.Ping, and closes the connection it opened.
func TestRunPing(t *testing.T) {
	for _, c := range []struct {
		structured bool
		want       string
	}{
		{false, "https://example.com/mcp?key=REDACTED answered in 1.00 ms (MCP 2025-06-18)\n"},
		{true, `{"server":"https://example.com/mcp?key=REDACTED","revision":"2025-06-18","ms":1}`},
	} {
		f := &fakeServer{init: &mcp.InitializeResult{ProtocolVersion: "2025-06-18"}}
		var stdout strings.Builder
		rio := runIO{
			write: func(b []byte) error { stdout.Write(b); return nil },
			print: func(kind format.Kind, v any) error {
				if kind != format.KindGeneric {
					t.Errorf("printed as %v", kind)
				}
				b, err := json.Marshal(v)
				stdout.Write(b)
				return err
			},
			resolve: func(server string) (*config.Entry, error) {
				return &config.Entry{Name: server, Server: &config.Server{URL: server}}, nil
			},
			openEntry: func(_ context.Context, e *config.Entry) (connection, func(), error) {
				return &fakeSession{f: f, name: e.Name}, func() { f.closed++ }, nil
			},
		}
		err := runPing(context.Background(), rio, pingOptions{server: "https://example.com/mcp?key=s3cret", structured: c.structured})
		if err != nil || stdout.String() != c.want || f.closed != 1 {
			t.Errorf("structured %v: err %v, closed %d, printed\n%s\nwant\n%s", c.structured, err, f.closed, stdout.String(), c.want)
		}
	}
}
