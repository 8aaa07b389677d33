package client

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCompletion: the servers of the --config files on the line and of
// MCPC_CONFIG, sorted, each with its transport; a configured server's
// message bound is the lower of the two; a URL is no configured server.
func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for p, s := range map[string]string{
		a: `{"mcpServers": {"zed": {"command": "zed-server"}, "web": {"url": "https://example.com/mcp", "maxMessage": "1KiB"}}}`,
		b: `{"mcpServers": {"old": {"url": "https://example.com/sse", "type": "sse"}}}`,
	} {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"MCPC_CONFIG": b, "HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "cfg"), "XDG_STATE_HOME": filepath.Join(dir, "state"), "XDG_CACHE_HOME": filepath.Join(dir, "cache")}
	c := Completion{Getenv: func(k string) string { return env[k] }, Cwd: dir, Files: []string{a}}
	names, transports := c.Servers()
	if !slices.Equal(names, []string{"old", "web", "zed"}) || !slices.Equal(transports, []string{"sse", "http", "stdio"}) {
		t.Errorf("Servers = %q, %q", names, transports)
	}
	if n, ok := c.MaxMessage("web", 4<<20); !ok || n != 1024 {
		t.Errorf("MaxMessage(web) = %d, %v", n, ok)
	}
	if n, ok := c.MaxMessage("zed", 4<<20); !ok || n != 4<<20 {
		t.Errorf("MaxMessage(zed) = %d, %v", n, ok)
	}
	if _, ok := c.MaxMessage("https://example.com/mcp", 4<<20); ok {
		t.Error("a URL is a configured server")
	}
	if got := c.Tasks("web"); len(got) != 0 {
		t.Errorf("Tasks(web) = %v, want none remembered", got)
	}
	if names, _ := (Completion{Getenv: c.Getenv, Cwd: dir, Files: []string{filepath.Join(dir, "missing.json")}}).Servers(); names != nil {
		t.Errorf("a config that does not load offers %q", names)
	}
}
