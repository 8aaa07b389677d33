package skills

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

func TestWrite(t *testing.T) {
	e := &Entry{Name: "pdf", URI: "skill://pdf/SKILL.md"}
	files := []Fetched{
		{File: File{URI: "skill://pdf/SKILL.md", Path: "SKILL.md", Size: 3, Digest: "d1"}, Data: []byte("one")},
		{File: File{URI: "skill://pdf/lib/x.py", Path: "lib/x.py", Size: 3}, Data: []byte("two")},
	}
	dir := filepath.Join(t.TempDir(), "out")
	w, err := Write(dir, e, files)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(w)
	want := `{"skill":"skill://pdf/SKILL.md","dir":"` + dir + `","files":[` +
		`{"path":"SKILL.md","uri":"skill://pdf/SKILL.md","size":3,"digest":"d1"},` +
		`{"path":"lib/x.py","uri":"skill://pdf/lib/x.py","size":3}]}`
	if string(got) != want {
		t.Errorf("Written = %s\nwant      %s", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "lib", "x.py")); string(b) != "two" {
		t.Errorf("lib/x.py holds %q, want %q", b, "two")
	}
	// A directory that is not empty is the user's to change: a usage
	// error naming the skill, and nothing written into it.
	_, err = Write(dir, e, files[:1])
	if err == nil || fail.CodeOf(err) != fail.Usage || !strings.HasPrefix(err.Error(), `cannot write skill "pdf": `) {
		t.Fatalf("Write into a full directory: %v (%s), want a usage error `cannot write skill \"pdf\": …`", err, fail.CodeOf(err))
	}
	var fe *fail.Error
	if !errors.As(err, &fe) || fe.Hint != "name a new or empty directory" {
		t.Errorf("hint of %v: want %q", err, "name a new or empty directory")
	}
}
