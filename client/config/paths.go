package config

import (
	"os/user"
	"path/filepath"
)

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
// spec requires). A HOME that is unset or relative (cron, some service
// managers) is replaced by the home directory in the user database, and
// failing that by "/", as container runtimes do for a user without an
// entry: the state and cache directories must never land relative to the
// directory mcpc happens to run in.
func DirsFrom(getenv func(string) string) Dirs {
	home := getenv("HOME")
	if !filepath.IsAbs(home) {
		home = "/"
		if h := userHome(); filepath.IsAbs(h) {
			home = h
		}
	}
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

// LockDir holds the lock files of config edits, of the trust records and
// of token refreshes.
func (d Dirs) LockDir() string { return filepath.Join(d.State, "locks") }

// OverflowDir holds full results that were too big to print inline.
func (d Dirs) OverflowDir() string { return filepath.Join(d.Cache, "overflow") }

// userHome is the current user's home directory from the user database
// (/etc/passwd in the static build), or "" when there is no entry.
var userHome = func() string {
	u, err := user.Current()
	if err != nil {
		return ""
	}
	return u.HomeDir
}
