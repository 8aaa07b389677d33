package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// TrustPath is the file named (from cwd, cleaned, a symlink not resolved)
// or the project file found upwards; with neither, a config error that
// says how to name one.
func TestTrustPath(t *testing.T) {
	home := t.TempDir()
	sub := filepath.Join(home, "repo", "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := TrustPath("../x/./.mcp.json", sub, home, "trust"); err != nil || p != filepath.Join(home, "repo", "x", ".mcp.json") {
		t.Errorf("named: %q %v", p, err)
	}
	_, err := TrustPath("", sub, home, "untrust")
	if want := "no .mcp.json found in " + sub + " or above"; err == nil || err.Error() != want || fail.CodeOf(err) != fail.Config || fail.As(err).Hint != "name the file: mcpc untrust FILE" {
		t.Errorf("none found: %v, want %q", err, want)
	}
	found := filepath.Join(home, "repo", ".mcp.json")
	if err := os.WriteFile(found, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := TrustPath("", sub, home, "trust"); err != nil || p != found {
		t.Errorf("found: %q %v", p, err)
	}
}

// Change trusts a file by its hash and names its servers, refuses one
// that does not parse, and untrusting says whether it was trusted.
func TestTrustChange(t *testing.T) {
	dir := t.TempDir()
	store, now := TrustStore{Dir: filepath.Join(dir, "state")}, time.Now()
	path := filepath.Join(dir, ".mcp.json")
	data := []byte(`{"mcpServers": {"b": {"command": "x"}, "a": {"url": "https://x.example"}}}`)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := store.Change(t.Context(), path, true, now)
	if err != nil || !c.Trusted || c.SHA256 != hashBytes(data) || len(c.Servers) != 2 || c.Parsed.Servers[c.Servers[0]] == nil {
		t.Fatalf("trust: %+v %v", c, err)
	}
	if st, _ := store.State(path, hashBytes(data)); st != Trusted {
		t.Errorf("state after trust: %v", st)
	}
	for _, want := range []bool{true, false} {
		c, err := store.Change(t.Context(), path, false, now)
		if err != nil || c.Had != want || c.Trusted || c.SHA256 != "" || c.Servers == nil {
			t.Errorf("untrust (had %v): %+v %v", want, c, err)
		}
	}
	if err := os.WriteFile(path, []byte(`{"mcpServers": [}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = store.Change(t.Context(), path, true, now)
	if fe := fail.As(err); fe == nil || fe.Code != fail.Config || fe.Hint != "fix the file before trusting it" {
		t.Errorf("broken file: %v", err)
	}
	_, err = store.Change(t.Context(), filepath.Join(dir, "none.json"), true, now)
	if want := "cannot read " + filepath.Join(dir, "none.json") + ": "; err == nil || fail.CodeOf(err) != fail.Config || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("missing file: %v, want %q...", err, want)
	}
}
