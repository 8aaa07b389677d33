package schemadiff

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// ReadFile refuses what is not a snapshot with a usage error that names
// the file as given and says what was wrong.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"ok.json":   `{"mcpcSnapshot": 1, "tools": [{"name": "a", "inputSchema": {"type": "object"}}]}`,
		"bad.json":  "{\n",
		"v2.json":   `{"mcpcSnapshot": 2, "tools": []}`,
		"list.json": `{"tools": []}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := ReadFile(filepath.Join(dir, "ok.json"), "ok.json")
	if err != nil || len(snap.Tools) != 1 || snap.Tools[0].Name != "a" {
		t.Fatalf("ReadFile(ok.json) = %+v, %v", snap, err)
	}
	for name, want := range map[string]string{
		"bad.json":     "snapshot file bad.json is not valid JSON: line 2, column 1: unexpected end of JSON input",
		"v2.json":      "snapshot file v2.json: snapshot format 2 is newer than this mcpc reads (format 1)",
		"list.json":    `snapshot file list.json: not an mcpc snapshot: it has no "mcpcSnapshot" format version`,
		"missing.json": "cannot read snapshot file missing.json: no such file or directory",
		".":            "cannot read snapshot file .: not a regular file (a directory)",
	} {
		_, err := ReadFile(filepath.Join(dir, name), name)
		if fail.CodeOf(err) != fail.Usage || err.Error() != want || fail.As(err).Hint != readHint {
			t.Errorf("ReadFile(%s) = %v, want usage error %q", name, err, want)
		}
	}
}
