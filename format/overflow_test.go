package format

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestOverflowSave(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "overflow")
	o := &Overflow{Dir: dir}
	path, err := o.Save("result", ".json", []byte(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != dir {
		t.Errorf("saved to %s", path)
	}
	name := filepath.Base(path)
	if !strings.HasPrefix(name, "result-") || !strings.HasSuffix(name, ".json") {
		t.Errorf("name %q", name)
	}
	if data, _ := os.ReadFile(path); string(data) != `{"a":1}` {
		t.Errorf("contents %q", data)
	}
	checkMode(t, dir, 0o700)
	checkMode(t, path, 0o600)

	other, err := o.Save("result", ".json", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if other == path {
		t.Error("two saves share a name")
	}
}

// writeAged creates a file of size bytes last modified age ago.
func writeAged(t *testing.T, dir, name string, size int, age time.Duration) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-age)
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestOverflowPrunesOldestFirst(t *testing.T) {
	dir := t.TempDir()
	// Name order differs from age order, so pruning must go by time.
	writeAged(t, dir, "a-middle", 100, 2*time.Hour)
	writeAged(t, dir, "b-newest", 100, time.Hour)
	writeAged(t, dir, "c-oldest", 100, 3*time.Hour)
	if err := os.Mkdir(filepath.Join(dir, "subdir"), 0o700); err != nil {
		t.Fatal(err)
	}

	o := &Overflow{Dir: dir, CapBytes: 250}
	path, err := o.Save("result", ".txt", make([]byte, 100))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"b-newest", filepath.Base(path), "subdir"}
	slices.Sort(want)
	if got := dirNames(t, dir); !slices.Equal(got, want) {
		t.Errorf("left %v, want %v", got, want)
	}
}

func TestOverflowKeepsNewFileOverCap(t *testing.T) {
	dir := t.TempDir()
	writeAged(t, dir, "old", 10, time.Hour)
	o := &Overflow{Dir: dir, CapBytes: 50}
	path, err := o.Save("result", ".json", make([]byte, 100))
	if err != nil {
		t.Fatal(err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{filepath.Base(path)}) {
		t.Errorf("left %v", got)
	}
}

func TestOverflowDefaultCap(t *testing.T) {
	dir := t.TempDir()
	writeAged(t, dir, "old", 1000, time.Hour)
	if _, err := (&Overflow{Dir: dir}).Save("result", ".json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if got := len(dirNames(t, dir)); got != 2 {
		t.Errorf("%d files left, want 2 (far under the default cap)", got)
	}
}

func TestOverflowSaveError(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Overflow{Dir: filepath.Join(blocker, "sub")}).Save("result", ".json", nil); err == nil {
		t.Error("no error for a directory that cannot be created")
	}
}
