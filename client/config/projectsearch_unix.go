//go:build unix

package config

import (
	"os"

	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// searchable reports whether the upward search for a project file may look
// in dir: not a directory anyone can write to (/tmp) or that belongs to
// another user, where anyone could plant a .mcp.json.
func searchable(dir string) bool {
	st, err := os.Stat(dir)
	if err != nil {
		return os.IsNotExist(err) // nothing there to plant a file in
	}
	return st.Mode().Perm()&0o002 == 0 && fsx.OwnedByUser(dir)
}

// ownFile reports whether path (after symlinks) belongs to the user: a
// project file someone else owns is not ours to consider.
func ownFile(path string) bool { return fsx.OwnedByUser(path) }
