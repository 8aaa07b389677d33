//go:build unix

package fsx

import (
	"io/fs"
	"os"
	"syscall"
)

// IsUser reports whether uid is the user this process acts as: its
// effective uid, the one rule for every per-user file and socket. What
// the process creates (a private directory, a session's socket) is the
// effective uid's, and SO_PEERCRED names a connecting process by its
// effective uid, so a holder and its invocations agree only on that one:
// a setuid mcpc (real uid the caller's, effective the binary owner's)
// attaches to the sockets it makes, and under sudo -E (both uids root)
// root is not handed to the user's holder that the kept environment
// leads it to, which would refuse it.
func IsUser(uid int) bool { return uid == os.Geteuid() }

// ownedByUser reports whether st belongs to the user (IsUser).
func ownedByUser(st fs.FileInfo) bool {
	uid, ok := Owner(st)
	return !ok || IsUser(uid)
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
