//go:build unix

package fsx

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByUser reports whether st belongs to the effective user.
func ownedByUser(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return !ok || int(sys.Uid) == os.Geteuid()
}

// OwnedByUser reports whether path (after symlinks) belongs to the user.
func OwnedByUser(path string) bool {
	st, err := os.Stat(path)
	return err == nil && ownedByUser(st)
}
