package config

import (
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// fakeInfo is a file's mode and owner.
type fakeInfo struct {
	mode fs.FileMode
	uid  int
}

func (f fakeInfo) Name() string       { return "" }
func (f fakeInfo) Size() int64        { return 0 }
func (f fakeInfo) Mode() fs.FileMode  { return f.mode }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return f.mode.IsDir() }
func (f fakeInfo) Sys() any           { return f.uid }

// fakePerms is a file system of the given files (no symlinks) for user 1000.
func fakePerms(files map[string]fakeInfo) permCheck {
	stat := func(p string) (fs.FileInfo, error) {
		if fi, ok := files[p]; ok {
			return fi, nil
		}
		return nil, fs.ErrNotExist
	}
	return permCheck{stat: stat, lstat: stat, euid: 1000,
		owner: func(fi fs.FileInfo) (int, bool) { return fi.Sys().(int), true }}
}

func TestSafeConfig(t *testing.T) {
	dir := fakeInfo{fs.ModeDir | 0o755, 1000}
	file := fakeInfo{0o600, 1000}
	for _, tc := range []struct {
		name      string
		dir, file fakeInfo
		want      string
	}{
		{"private", dir, file, ""},
		{"readable by all", dir, fakeInfo{0o644, 1000}, ""},
		{"root's file in root's directory", fakeInfo{fs.ModeDir | 0o755, 0}, fakeInfo{0o644, 0}, ""},
		{"sticky world-writable directory", fakeInfo{fs.ModeDir | fs.ModeSticky | 0o777, 0}, file, ""},
		{"group-writable file", dir, fakeInfo{0o664, 1000},
			"config file /c/config.json is writable by others (mode 0664), who could make mcpc run any command as you|make it writable by you only: chmod go-w /c/config.json"},
		{"world-writable file", dir, fakeInfo{0o646, 1000},
			"config file /c/config.json is writable by others (mode 0646), who could make mcpc run any command as you|make it writable by you only: chmod go-w /c/config.json"},
		{"file of another user", dir, fakeInfo{0o600, 1001},
			`config file /c/config.json is owned by another user (uid 1001), who could make mcpc run any command as you|if it is yours to use, make it yours: chown "$(id -u)" /c/config.json`},
		{"world-writable directory", fakeInfo{fs.ModeDir | 0o777, 1000}, file,
			"the directory /c of config file /c/config.json is writable by others (mode 0777), who could make mcpc run any command as you|make it writable by you only: chmod go-w /c"},
		{"group-writable sticky directory", fakeInfo{fs.ModeDir | fs.ModeSticky | 0o775, 1000}, file,
			"the directory /c of config file /c/config.json is writable by others (mode 0775), who could make mcpc run any command as you|make it writable by you only: chmod go-w /c"},
		{"directory of another user", fakeInfo{fs.ModeDir | 0o755, 1001}, file,
			`the directory /c of config file /c/config.json is owned by another user (uid 1001), who could make mcpc run any command as you|if it is yours to use, make it yours: chown "$(id -u)" /c`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := fakePerms(map[string]fakeInfo{"/c": tc.dir, "/c/config.json": tc.file}).safeConfig("/c/config.json")
			got := ""
			if err != nil {
				got = err.Error() + "|" + hintOf(err)
			}
			if got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	if err := fakePerms(nil).safeConfig("/c/none.json"); err != nil {
		t.Fatalf("a missing file: %v", err)
	}
}

func hintOf(err error) string {
	var fe *fail.Error
	if errors.As(err, &fe) {
		return fe.Hint
	}
	return ""
}
