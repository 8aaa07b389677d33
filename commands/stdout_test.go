package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/creds"
)

// stdoutEnv is an Env whose stdout is out, with a fake server behind it.
func stdoutEnv(t *testing.T, out interface{ Write([]byte) (int, error) }, errOut *strings.Builder) (Env, string) {
	t.Helper()
	home := t.TempDir()
	f := &fakeServer{
		init:  &mcp.InitializeResult{ProtocolVersion: "2025-11-25", Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}},
		lists: map[string]json.RawMessage{"tools": json.RawMessage(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`)},
	}
	return Env{
		Stdin: strings.NewReader(""), Stdout: out, Stderr: errOut,
		Getenv:  func(k string) string { return map[string]string{"HOME": home}[k] },
		Environ: func() []string { return nil }, Getwd: func() (string, error) { return home, nil },
		Now: time.Now, Keyring: creds.NewMemStore(), connector: f,
	}, home
}

// One rule for every command's stdout: a reader that went away (EPIPE) is
// no failure, any other failed write (a full disk) is exit 5 naming it —
// whether the command writes through the formatter or prints its own
// lines (ping's text, trust's listing, a --batch line).
func TestStdoutOneRule(t *testing.T) {
	cfg := probeConfig(t, "one")
	project := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(project, []byte(`{"mcpServers":{"a":{"command":"x"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"ping", []string{"ping", "--text", "--config", cfg, "one"}},
		{"trust", []string{"trust", "--text", project}},
		{"batch", []string{"call", "--config", cfg, "one", "--batch", "-"}},
	} {
		var errOut strings.Builder
		env, _ := stdoutEnv(t, brokenPipe{}, &errOut)
		env.Stdin = strings.NewReader(`{"tool":"echo","arguments":{}}` + "\n")
		if code := Main(context.Background(), append([]string{"mcpc"}, c.args...), env); code != 0 || errOut.String() != "" {
			t.Errorf("%s, reader gone: exit %d, stderr %q; want 0 and nothing", c.name, code, errOut.String())
		}
		errOut.Reset()
		env, _ = stdoutEnv(t, failWriter{}, &errOut)
		env.Stdin = strings.NewReader(`{"tool":"echo","arguments":{}}` + "\n")
		if code := Main(context.Background(), append([]string{"mcpc"}, c.args...), env); code != 5 || errOut.String() != "mcpc: error: no space left on device\n" {
			t.Errorf("%s, disk full: exit %d, stderr %q; want 5 and the write's error", c.name, code, errOut.String())
		}
	}
}

// Rendered output follows the same rule as what a command returns: only
// stdout's own EPIPE is its reader gone; an EPIPE from elsewhere in what
// rendering returned is a failure.
func TestPrintedOneRule(t *testing.T) {
	sw := &stdoutWriter{w: writerFunc(func(p []byte) (int, error) { return 0, syscall.EPIPE })}
	other := fmt.Errorf("rendering: %w", &net.OpError{Op: "write", Net: "unix", Err: os.NewSyscallError("write", syscall.EPIPE)})
	if err := printed(sw, other); err == nil {
		t.Error("an EPIPE that is not stdout's was taken for the reader gone")
	}
	_, werr := sw.Write([]byte("x"))
	if err := printed(sw, fmt.Errorf("rendering: %w", werr)); err != nil {
		t.Errorf("stdout's own EPIPE: %v, want nil (the reader went away)", err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
