package commands

import (
	"context"
	"syscall"
	"time"

	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/creds"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// probeConfig writes a config file of stdio servers named names.
func probeConfig(t *testing.T, names ...string) string {
	t.Helper()
	servers := map[string]any{}
	for _, n := range names {
		servers[n] = map[string]any{"command": "fake-" + n}
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	p := filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPingPrintsTheRoundTrip(t *testing.T) {
	f := &fakeServer{init: &mcp.InitializeResult{ProtocolVersion: "2025-11-25"}}
	code, out, errOut := runFake(t, f, "", "ping", "--stdio", "srv")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if want := `{
  "server": "srv",
  "revision": "2025-11-25",
  "ms": 1
}
`; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	// A failed ping is the failure's exit status.
	f = &fakeServer{pingErr: fail.New(fail.Timeout, "", "timed out trying to ping srv")}
	if code, _, errOut := runFake(t, f, "", "ping", "--stdio", "srv"); code != 6 || !strings.Contains(errOut, "timed out trying to ping srv") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// mcpc list --check reports the most severe failure (client.Severity)
// with its status word (client.CheckStatus).
func TestCheckStatusAndSeverity(t *testing.T) {
	f := &fakeServer{
		init:  &mcp.InitializeResult{ProtocolVersion: "2026-07-28", Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}},
		tools: []*mcp.Tool{{Name: "a"}, {Name: "b"}},
		connectErrs: map[string]error{
			"slow":   fail.New(fail.ConnectTimeout, "raise it", "slow did not complete the MCP handshake"),
			"locked": fail.New(fail.AuthRequired, "mcpc login locked", "locked needs a login"),
			"gone":   fail.New(fail.Connection, "", "cannot start gone"),
		},
	}
	cfg := probeConfig(t, "up", "slow", "locked", "gone")
	code, out, errOut := runFake(t, f, "", "list", "--check", "--config", cfg, "-q", "servers.#.status")
	// The most severe failure is the unreachable one (5), before the
	// timeout (6) and the login (4).
	if code != 5 || !strings.Contains(errOut, "mcpc: error: 3 of 4 servers are not ok; the most severe: gone (unreachable)\n") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if want := "[\n  \"unreachable\",\n  \"needs login\",\n  \"timeout\",\n  \"ok\"\n]\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	code, out, _ = runFake(t, f, "", "list", "--check", "--config", cfg, "-q", "servers.#(name==\"up\").tools", "up")
	if code != 0 || out != "2\n" {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	code, _, errOut = runFake(t, f, "", "list", "--check", "--config", cfg, "slow", "locked")
	if code != 6 {
		t.Errorf("timeout before login: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runFake(t, f, "", "list", "--check", "--parallel", "0", "--config", cfg); code != 2 || !strings.Contains(errOut, "--parallel must be at least 1, not 0") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestGrep(t *testing.T) {
	f := &fakeServer{
		init: &mcp.InitializeResult{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Resources: &mcp.ResourceCapabilities{}}},
		lists: map[string]json.RawMessage{
			"tools":     json.RawMessage(`{"tools":[{"name":"search_issues","description":"Find issues"},{"name":"echo","description":"Echo the ISSUE back"}]}`),
			"resources": json.RawMessage(`{"resources":[{"uri":"file:///issues.md","name":"tracker"}]}`),
		},
		connectErrs: map[string]error{"down": fail.New(fail.Connection, "", "cannot start down")},
	}
	cfg := probeConfig(t, "one", "down")
	code, out, errOut := runFake(t, f, "", "grep", "--config", cfg, "issue")
	if code != 0 || errOut != "mcpc: note: down not searched: cannot start down\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	want := `{"server":"one","kind":"tool","name":"search_issues","description":"Find issues"}
{"server":"one","kind":"tool","name":"echo","description":"Echo the ISSUE back"}
{"server":"one","kind":"resource","name":"tracker","uri":"file:///issues.md"}
`
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	// --name: names (and URIs) only.
	if _, out, _ := runFake(t, f, "", "grep", "--config", cfg, "--name", "-q", "name", "issue"); out != "\"search_issues\"\n\"tracker\"\n" {
		t.Errorf("--name: stdout %q", out)
	}
	if code, out, _ := runFake(t, f, "", "grep", "--config", cfg, "nothing-like-it"); code != 1 || out != "" {
		t.Errorf("no match: exit %d, stdout %q", code, out)
	}
	if code, _, errOut := runFake(t, f, "", "grep", "--config", cfg, "x", "down"); code != 5 || !strings.Contains(errOut, "mcpc: error: no server could be searched (1 tried)") {
		t.Errorf("none searched: exit %d, stderr %q", code, errOut)
	}
	// An invalid pattern is refused before anything connects.
	f.connects = nil
	if code, _, errOut := runFake(t, f, "", "grep", "--config", cfg, "a("); code != 2 || !strings.Contains(errOut, `mcpc: error: invalid PATTERN "a(": missing closing ): "a("`) || len(f.connects) != 0 {
		t.Errorf("invalid pattern: exit %d, stderr %q, %d connects", code, errOut, len(f.connects))
	}
}

// When no server could be searched, grep's hint is the most severe
// failure's (a connection before a timeout), and the notes come in the
// servers' order, however the connects finished.
func TestGrepFailuresInOrder(t *testing.T) {
	f := &fakeServer{connectErrs: map[string]error{
		"a": fail.New(fail.Timeout, "hint of a", "a timed out"),
		"b": fail.New(fail.Connection, "hint of b", "cannot start b"),
		"c": fail.New(fail.Timeout, "hint of c", "c timed out"),
	}}
	cfg := probeConfig(t, "a", "b", "c")
	want := "mcpc: note: a not searched: a timed out\n" +
		"mcpc: note: b not searched: cannot start b\n" +
		"mcpc: note: c not searched: c timed out\n" +
		"mcpc: error: no server could be searched (3 tried)\n" +
		"mcpc: hint: hint of b\n"
	for range 30 {
		code, _, errOut := runFake(t, f, "", "grep", "--config", cfg, "--text", "x")
		if code != 5 || errOut != want {
			t.Fatalf("exit %d, stderr:\n%s\nwant:\n%s", code, errOut, want)
		}
	}
}

// failWriter fails every write as a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// A grep whose matches cannot be written fails (it was exit 0 before);
// a reader that went away (EPIPE) is still no failure.
func TestGrepWriteFailure(t *testing.T) {
	f := &fakeServer{
		init:  &mcp.InitializeResult{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}},
		lists: map[string]json.RawMessage{"tools": json.RawMessage(`{"tools":[{"name":"echo"}]}`)},
	}
	cfg := probeConfig(t, "one")
	home := t.TempDir()
	var errOut strings.Builder
	env := Env{
		Stdin: strings.NewReader(""), Stdout: failWriter{}, Stderr: &errOut,
		Getenv:  func(k string) string { return map[string]string{"HOME": home}[k] },
		Environ: func() []string { return nil }, Getwd: func() (string, error) { return home, nil },
		Now: time.Now, Keyring: creds.NewMemStore(), connector: f,
	}
	if code := Main(context.Background(), []string{"mcpc", "grep", "--config", cfg, "echo"}, env); code != 5 || errOut.String() != "mcpc: error: no space left on device\n" {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}
