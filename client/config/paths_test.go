package config

import (
	"path/filepath"
	"testing"
)

// An unset or relative HOME never puts state or cache relative to the
// working directory: the user database's home is used, else "/".
func TestDirsWithoutHome(t *testing.T) {
	old := userHome
	t.Cleanup(func() { userHome = old })
	for _, tc := range []struct{ home, db, want string }{
		{"", "/home/ada", "/home/ada"},
		{"relative/dir", "/home/ada", "/home/ada"},
		{"", "", "/"},
		{"", "not/absolute", "/"},
		{"/srv/me", "/home/ada", "/srv/me"},
	} {
		userHome = func() string { return tc.db }
		d := DirsFrom(func(k string) string { return map[string]string{"HOME": tc.home}[k] })
		if d.Home != tc.want {
			t.Errorf("HOME=%q, user database %q: Home = %q, want %q", tc.home, tc.db, d.Home, tc.want)
		}
		for _, p := range []string{d.Config, d.State, d.Cache} {
			if !filepath.IsAbs(p) {
				t.Errorf("HOME=%q, user database %q: %q is relative", tc.home, tc.db, p)
			}
		}
	}
}
