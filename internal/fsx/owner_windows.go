package fsx

import (
	"io/fs"
	"os"
)

// ownedByUser is true on Windows: a user's profile directories are already
// private by their ACLs, and ownership is not a uid to compare.
func ownedByUser(fs.FileInfo) bool { return true }

// IsUser is true on Windows, where no file has a uid to compare (Owner),
// nor a connection (the holder checks no peer).
func IsUser(int) bool { return true }

// Owner is false on Windows: see ownedByUser.
func Owner(fs.FileInfo) (int, bool) { return 0, false }

// OwnedByUser reports whether path exists; see ownedByUser.
func OwnedByUser(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
