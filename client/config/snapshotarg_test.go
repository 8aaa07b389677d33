package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// mcpc diff's rule: a URL is a server, a name with a "/" a file, a bare
// name a file or a configured server, never both or neither; the
// configuration is read only for a bare name.
func TestSnapshotFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"snap.json", "both"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &Config{Servers: map[string]*Entry{"both": {}, "srv": {}},
		Project: &File{Servers: map[string]*Server{"proj": {}}}}
	loads := 0
	load := func() (*Config, error) { loads++; return cfg, nil }
	files, err := SnapshotFiles([]string{"https://example.com/mcp", "./missing.json"}, dir, load)
	if err != nil || files[0] || !files[1] || loads != 0 {
		t.Errorf("URL and path: %v %v, %d loads", files, err, loads)
	}
	files, err = SnapshotFiles([]string{"snap.json", "srv"}, dir, load)
	if err != nil || !files[0] || files[1] || loads != 1 {
		t.Errorf("bare names: %v %v, %d loads", files, err, loads)
	}
	if files, err := SnapshotFiles([]string{"proj", "snap.json"}, dir, load); err != nil || files[0] {
		t.Errorf("an untrusted project's server: %v %v", files, err)
	}
	for arg, want := range map[string]string{
		"both":    `"both" is both a file and a configured server`,
		"neither": `"neither" is neither a snapshot file nor a configured server`,
	} {
		_, err := SnapshotFiles([]string{arg, "snap.json"}, dir, load)
		if fail.CodeOf(err) != fail.Usage || err.Error() != want {
			t.Errorf("%s: %v", arg, err)
		}
	}
	bad := errors.New("bad config")
	if _, err := SnapshotFiles([]string{"snap.json"}, dir, func() (*Config, error) { return nil, bad }); err != bad {
		t.Errorf("a config that does not load: %v", err)
	}
}
