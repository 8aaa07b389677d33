package client

import "path/filepath"

// Dirs are the per-user directories mcpc reads and writes. They are computed
// from an injected getenv so tests never touch the real home directory.
type Dirs struct {
	Config string // $XDG_CONFIG_HOME/mcpc
	State  string // $XDG_STATE_HOME/mcpc: trust records, per-server memos
	Cache  string // $XDG_CACHE_HOME/mcpc: overflow files
	Home   string
}

// DirsFrom resolves the XDG base directories, falling back to the usual
// locations under HOME when a variable is unset or not absolute (as the XDG
// spec requires).
func DirsFrom(getenv func(string) string) Dirs {
	home := getenv("HOME")
	base := func(env, fallback string) string {
		if v := getenv(env); v != "" && filepath.IsAbs(v) {
			return filepath.Join(v, "mcpc")
		}
		return filepath.Join(home, fallback, "mcpc")
	}
	return Dirs{
		Config: base("XDG_CONFIG_HOME", ".config"),
		State:  base("XDG_STATE_HOME", filepath.Join(".local", "state")),
		Cache:  base("XDG_CACHE_HOME", ".cache"),
		Home:   home,
	}
}

// UserConfigFile is the lowest-precedence config source.
func (d Dirs) UserConfigFile() string { return filepath.Join(d.Config, "config.json") }

// OverflowDir holds full results that were too big to print inline.
func (d Dirs) OverflowDir() string { return filepath.Join(d.Cache, "overflow") }
