//go:build unix

package fsx

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByUser reports whether st belongs to the effective user.
func ownedByUser(st fs.FileInfo) bool {
	uid, ok := Owner(st)
	return !ok || uid == os.Geteuid()
}

// Owner is the uid that owns st; false where the system has none to give.
func Owner(st fs.FileInfo) (int, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(sys.Uid), true
}

// OwnedByUser reports whether path (after symlinks) belongs to the user.
func OwnedByUser(path string) bool {
	st, err := os.Stat(path)
	return err == nil && ownedByUser(st)
}
