package format

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
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
	middle, newest, oldest := "result-20260101T000003-1.txt", "result-20260101T000001-2.json", "image-20260101T000002-3.png"
	writeAged(t, dir, middle, 100, 2*time.Hour)
	writeAged(t, dir, newest, 100, time.Hour)
	writeAged(t, dir, oldest, 100, 3*time.Hour)
	// Files mcpc did not write are never pruned, however old.
	writeAged(t, dir, "notes.txt", 100, 5*time.Hour)
	// Nor is another invocation's fresh file.
	fresh := "result-20260101T000004-4.txt"
	writeAged(t, dir, fresh, 100, time.Minute)
	if err := os.Mkdir(filepath.Join(dir, "subdir"), 0o700); err != nil {
		t.Fatal(err)
	}

	o := &Overflow{Dir: dir, CapBytes: 350}
	path, err := o.Save("result", ".txt", make([]byte, 100))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{newest, fresh, "notes.txt", filepath.Base(path), "subdir"}
	slices.Sort(want)
	if got := dirNames(t, dir); !slices.Equal(got, want) {
		t.Errorf("left %v, want %v", got, want)
	}
}

func TestOverflowRefusesFileOverCap(t *testing.T) {
	dir := t.TempDir()
	o := &Overflow{Dir: dir, CapBytes: 50}
	if _, err := o.Save("result", ".json", make([]byte, 100)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Save over the cap = %v", err)
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Errorf("left %v", got)
	}
}

func TestOverflowDirIsPrivateAndReal(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "elsewhere")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "overflow")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Overflow{Dir: link}).Save("result", ".txt", []byte("x")); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("Save through a symlinked directory = %v", err)
	}
	open := filepath.Join(root, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o777)
	if _, err := (&Overflow{Dir: open}).Save("result", ".txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(open); st.Mode().Perm() != 0o700 {
		t.Errorf("world-writable overflow directory kept its mode %v", st.Mode().Perm())
	}
}

// An overflow directory another user owns is refused, with its path and
// what to do, and nothing is written in it. Changing a directory's owner
// needs root.
func TestOverflowDirOfAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a directory to another user")
	}
	dir := filepath.Join(t.TempDir(), "overflow")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	want := "overflow directory " + dir + " belongs to another user; remove it"
	if _, err := (&Overflow{Dir: dir}).Save("result", ".txt", []byte("x")); err == nil || err.Error() != want {
		t.Errorf("Save in another user's directory = %v, want %q", err, want)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("files written in another user's directory: %v", names)
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

func TestWriteOverCapSavesNothing(t *testing.T) {
	dir := t.TempDir()
	var out, notes bytes.Buffer
	big := `{"text":"` + strings.Repeat("x", 4000) + `"}`
	opts := Options{Mode: ModeJSON, MaxBytes: 512, MaxLines: 100, Overflow: &Overflow{Dir: dir, CapBytes: 1000}}
	if err := Write(&out, &notes, []byte(big), opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(notes.String(), "full result (4017 bytes) not saved (larger than the overflow cap)") {
		t.Errorf("notes = %q", notes.String())
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Errorf("saved %v", got)
	}
}

// fullDisk is a disk with room bytes left: past them, writes fail with
// ENOSPC, as write(2) does on a full file system.
type fullDisk struct {
	w    io.Writer
	room int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) > d.room {
		n, _ := d.w.Write(p[:d.room])
		d.room = 0
		return n, &fs.PathError{Op: "write", Path: "the file", Err: syscall.ENOSPC}
	}
	d.room -= len(p)
	return d.w.Write(p)
}

func fillsAfter(room int) func(io.Writer) io.Writer {
	return func(w io.Writer) io.Writer { return &fullDisk{w: w, room: room} }
}

// TestWriteDiskFull: the tool ran, so a full result that cannot be saved
// (the disk fills while the overflow file is written) is printed bounded,
// with a note that names why, and no partial file is left behind.
func TestWriteDiskFull(t *testing.T) {
	big := `{"content":[{"type":"text","text":"` + strings.Repeat(`x\n`, 200<<10) + `"}],"isError":false}`
	for _, mode := range []Mode{ModeJSON, ModeText} {
		dir := t.TempDir()
		o := &Overflow{Dir: dir, writeVia: fillsAfter(100 << 10)}
		var out, notes bytes.Buffer
		err := Write(&out, &notes, []byte(big), Options{Mode: mode, Kind: KindCallTool, MaxBytes: 4096, Overflow: o})
		if err != nil {
			t.Fatalf("mode %v: %v", mode, err)
		}
		if out.Len() == 0 || out.Len() > 4096 {
			t.Errorf("mode %v: %d bytes on stdout", mode, out.Len())
		}
		if strings.Contains(out.String(), dir) {
			t.Errorf("mode %v: the output names a file that is not there:\n%s", mode, out.String())
		}
		if mode == ModeJSON && !json.Valid(out.Bytes()) {
			t.Errorf("mode %v: the bounded result is not JSON:\n%s", mode, out.String())
		}
		want := regexp.MustCompile(`^mcpc: note: output truncated to \d+ bytes / \d+ lines; full result \(\d+ bytes\) not saved \(cannot write to the overflow directory ` +
			regexp.QuoteMeta(dir) + `: no space left on device\)\n$`)
		if !want.MatchString(notes.String()) {
			t.Errorf("mode %v: notes %q", mode, notes.String())
		}
		if got := dirNames(t, dir); len(got) != 0 {
			t.Errorf("mode %v: a partial file is left: %v", mode, got)
		}
	}
}

// TestWriteMediaDiskFull: an image that cannot be saved is left out like
// one over the cap, with a note; the rest of the result is printed.
func TestWriteMediaDiskFull(t *testing.T) {
	dir := t.TempDir()
	img := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 10000))
	result := `{"content":[{"type":"image","mimeType":"image/png","data":"` + img + `"},{"type":"text","text":"after"}]}`
	var out, notes bytes.Buffer
	opts := Options{Mode: ModeJSON, MaxMediaBytes: 100, Overflow: &Overflow{Dir: dir, writeVia: fillsAfter(10)}}
	if err := Write(&out, &notes, []byte(result), opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"dataOmitted": true`) || !strings.Contains(out.String(), `"text": "after"`) {
		t.Errorf("out:\n%s", out.String())
	}
	want := "mcpc: note: image (image/png, 10000 bytes) omitted: not saved (cannot write to the overflow directory " + dir + ": no space left on device)\n"
	if notes.String() != want {
		t.Errorf("notes %q, want %q", notes.String(), want)
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Errorf("a partial file is left: %v", got)
	}
}
