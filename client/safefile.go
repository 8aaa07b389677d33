package client

import (
	"os"
	"syscall"
)

// MaxConfigFile bounds a config or trust file: real ones are a few KiB, and
// a file planted to exhaust memory must not be read in full.
const MaxConfigFile = 4 << 20

// searchable reports whether the upward search for a project file may look
// in dir: not a directory anyone can write to (/tmp) or that belongs to
// another user, where anyone could plant a .mcp.json.
func searchable(dir string) bool {
	st, err := os.Stat(dir)
	if err != nil {
		return os.IsNotExist(err) // nothing there to plant a file in
	}
	if st.Mode().Perm()&0o002 != 0 {
		return false
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return false
	}
	return true
}

// ownFile reports whether path (after symlinks) belongs to the user: a
// project file someone else owns is not ours to consider.
func ownFile(path string) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return !ok || int(sys.Uid) == os.Geteuid()
}
