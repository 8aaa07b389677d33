//go:build unix

package fsx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestReadFileRefusesWhatIsNotASmallRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 2<<20+1), 0o600)
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("hello"), 0o600)
	for _, c := range []struct {
		path, want string
	}{
		{fifo, "read " + fifo + ": not a regular file (a named pipe)"},
		{"/dev/zero", "read /dev/zero: not a regular file (a device)"},
		{dir, "read " + dir + ": not a regular file (a directory)"},
		{big, "read " + big + ": larger than the 2 MiB limit"},
	} {
		_, err := ReadFile(c.path, 2<<20)
		if err == nil || err.Error() != c.want {
			t.Errorf("ReadFile(%s) = %v, want %q", c.path, err, c.want)
		}
	}
	if _, err := ReadFile(small, 4); err == nil || err.Error() != "read "+small+": larger than the 4-byte limit" || !IsTooLarge(err) {
		t.Errorf("over a small limit: %v", err)
	}
	if b, err := ReadFile(small, 5); err != nil || string(b) != "hello" {
		t.Errorf("ReadFile(small) = %q, %v", b, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none"), 5); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// A file longer than Stat said (here one of Linux's /proc files, which
// say 0) is read whole, up to the limit.
func TestReadFileBeyondStatSize(t *testing.T) {
	const path = "/proc/self/status"
	if _, err := os.Stat(path); err != nil {
		t.Skip(err)
	}
	b, err := ReadFile(path, 1<<20)
	if err != nil || !strings.Contains(string(b), "\nPid:") {
		t.Fatalf("ReadFile(%s) = %q, %v", path, b, err)
	}
	if _, err := ReadFile(path, 10); !IsTooLarge(err) {
		t.Errorf("over the limit: %v", err)
	}
}

// ReadFileNoFollow reads what ReadFile reads, except through a symlink:
// a link planted in the state directory is refused, whatever it points at.
func TestReadFileNoFollowRefusesSymlinks(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("hello"), 0o600)
	link := filepath.Join(dir, "link")
	if err := os.Symlink("small", link); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(link, 5); err != nil || string(b) != "hello" {
		t.Errorf("ReadFile(link) = %q, %v", b, err)
	}
	if _, err := ReadFileNoFollow(link, 5); err == nil || err.Error() != "read "+link+": not a regular file (a symbolic link)" {
		t.Errorf("ReadFileNoFollow(link) = %v", err)
	}
	if b, err := ReadFileNoFollow(small, 5); err != nil || string(b) != "hello" {
		t.Errorf("ReadFileNoFollow(small) = %q, %v", b, err)
	}
	if _, err := ReadFileNoFollow(small, 4); !IsTooLarge(err) {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := ReadFileNoFollow("/dev/zero", 5); err == nil || err.Error() != "read /dev/zero: not a regular file (a device)" {
		t.Errorf("a device: %v", err)
	}
}

func TestWriteFileThroughASymlinkKeepsTheLinkAndTheMode(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "config.json")
	os.MkdirAll(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte("old"), 0o640)
	link := filepath.Join(dir, "config.json")
	if err := os.Symlink("dotfiles/config.json", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new"), 0o600, Follow); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", st.Mode(), err)
	}
	b, _ := os.ReadFile(target)
	st, _ := os.Stat(target)
	if string(b) != "new" || st.Mode().Perm() != 0o640 {
		t.Errorf("target = %q mode %v, want \"new\" mode 0640", b, st.Mode().Perm())
	}
	err := WriteFile(link, []byte("x"), 0o600, Refuse)
	if err == nil || err.Error() != "write "+link+": is a symbolic link; refusing to write through it" {
		t.Errorf("Refuse: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(target))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	fresh := filepath.Join(dir, "fresh")
	if err := WriteFile(fresh, []byte("a"), 0o600, Refuse); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o600 {
		t.Errorf("a new file's mode = %v", st.Mode().Perm())
	}
}

func TestCreateExclFirstWins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "key")
	if err := CreateExcl(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CreateExcl(path, []byte("two"), 0o600); !errors.Is(err, os.ErrExist) {
		t.Errorf("second CreateExcl: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one" {
		t.Errorf("content %q", b)
	}
}

func TestPrivateDir(t *testing.T) {
	base := t.TempDir()
	d := filepath.Join(base, "a", "b")
	if err := PrivateDir(d); err != nil {
		t.Fatal(err)
	}
	os.Chmod(d, 0o755)
	if err := PrivateDir(d); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(d); st.Mode().Perm() != 0o700 {
		t.Errorf("mode %v not tightened", st.Mode().Perm())
	}
	link := filepath.Join(base, "link")
	os.Symlink(d, link)
	if err := PrivateDir(link); err == nil || err.Error() != link+" is not a directory (a symbolic link); remove it" {
		t.Errorf("symlink: %v", err)
	}
}

func TestLockSerializes(t *testing.T) {
	dir := t.TempDir()
	counter := filepath.Join(dir, "n")
	os.WriteFile(counter, []byte("0"), 0o600)
	lock := LockPath(filepath.Join(dir, "locks"), counter)
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			unlock, err := Lock(ctx, lock)
			if err != nil {
				t.Error(err)
				return
			}
			defer unlock()
			b, _ := ReadFile(counter, 100)
			n, _ := strconv.Atoi(string(b))
			if err := WriteFile(counter, []byte(strconv.Itoa(n+1)), 0o600, Refuse); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if b, _ := os.ReadFile(counter); string(b) != "20" {
		t.Errorf("counter = %s, want 20", b)
	}
}

func TestWriteTree(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "out", "skill")
	files := []TreeFile{{"SKILL.md", []byte("s")}, {"a/b/c.md", []byte("c")}}
	if err := WriteTree(dir, files, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a", "b", "c.md")); err != nil || string(b) != "c" {
		t.Fatalf("c.md = %q, %v", b, err)
	}
	if err := WriteTree(dir, files, 0o644); err == nil || !strings.Contains(err.Error(), "exists and is not empty") {
		t.Errorf("over a full directory: %v", err)
	}
	// A path that leaves the tree fails and leaves nothing behind, not
	// even the files before it.
	for _, bad := range []string{"../x", "/etc/x", "a/../../x", ""} {
		d := filepath.Join(base, "bad")
		err := WriteTree(d, []TreeFile{{"ok", nil}, {bad, []byte("x")}}, 0o644)
		if err == nil {
			t.Errorf("%q: written", bad)
		}
		if left, _ := os.ReadDir(base); len(left) != 1 {
			t.Errorf("%q: left %v", bad, left)
		}
	}
	// A symlink in place of the directory is not written through.
	target := t.TempDir()
	link := filepath.Join(base, "link")
	os.Symlink(target, link)
	if err := WriteTree(link, files, 0o644); err == nil || !strings.Contains(err.Error(), "is not a directory (a symbolic link)") {
		t.Errorf("symlink: %v", err)
	}
	if left, _ := os.ReadDir(target); len(left) != 0 {
		t.Errorf("wrote through the link: %v", left)
	}
	// Two paths for one file are refused.
	if err := WriteTree(filepath.Join(base, "twice"), []TreeFile{{"x", nil}, {"x", nil}}, 0o644); err == nil {
		t.Errorf("one path twice: written")
	}
}

// PrivateFile tightens an existing file to 0600 and leaves a missing one
// alone (whoever creates it makes it private).
func TestPrivateFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.json")
	if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := PrivateFile(p); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode after PrivateFile: %v, %v", fi.Mode().Perm(), err)
	}
	if err := PrivateFile(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("missing file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("PrivateFile created a missing file: %v", err)
	}
}

// SameFile sees through a symlink and refuses a missing file.
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	a, link := filepath.Join(dir, "a"), filepath.Join(dir, "link")
	if err := os.WriteFile(a, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	if !SameFile(a, link) || SameFile(a, filepath.Join(dir, "missing")) || SameFile(filepath.Join(dir, "missing"), filepath.Join(dir, "missing")) {
		t.Error("SameFile")
	}
}

// WriteFileParts writes its parts one after the other, atomically like
// WriteFile, and refuses a planted link the same way.
func TestWriteFileParts(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rec.json")
	if err := WriteFileParts(p, [][]byte{[]byte(`{"at":1,"result":`), []byte(`[1,2]`), []byte(`}`)}, 0o600, Refuse); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != `{"at":1,"result":[1,2]}` {
		t.Errorf("file holds %q", got)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	link := filepath.Join(dir, "link.json")
	os.Symlink(p, link)
	if err := WriteFileParts(link, [][]byte{[]byte("x")}, 0o600, Refuse); err == nil || !strings.Contains(err.Error(), "is a symbolic link; refusing to write through it") {
		t.Errorf("through a link: %v", err)
	}
}
