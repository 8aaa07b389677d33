package config

import (
	"context"
	"path/filepath"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// TrustPath is the project file 'mcpc trust' (or untrust, cmd) acts on:
// arg from cwd, or without one the .mcp.json found from cwd upwards. It is
// trusted by the path the user named, not its target (a symlink stays a
// symlink): that is the path the project search finds.
func TrustPath(arg, cwd, home, cmd string) (string, error) {
	path := arg
	if path == "" {
		if path = FindProjectFile(cwd, home); path == "" {
			return "", &fail.Error{Code: fail.Config, Msg: "no .mcp.json found in " + cwd + " or above", Hint: "name the file: mcpc " + cmd + " FILE"}
		}
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	return filepath.Clean(path), nil
}

// TrustChange is what 'mcpc trust' or 'untrust' did to a project file;
// as JSON, what they print.
type TrustChange struct {
	File    string   `json:"file"`
	SHA256  string   `json:"sha256"` // of the bytes trusted; empty when untrusted
	Trusted bool     `json:"trusted"`
	Servers []string `json:"servers"`
	// Parsed is the file as trusted (nil when untrusted); Had: it was
	// trusted before.
	Parsed *File `json:"-"`
	Had    bool  `json:"-"`
}

// Change trusts the project file at path (trust) or forgets it. It is
// trusted by the SHA-256 of the bytes read here, the ones the user
// reviewed; a file that does not parse is refused, as the user could not
// have reviewed what mcpc would run.
func (t TrustStore) Change(ctx context.Context, path string, trust bool, now time.Time) (*TrustChange, error) {
	c := &TrustChange{File: path, Servers: []string{}}
	if !trust {
		var err error
		c.Had, err = t.Set(ctx, path, "", now)
		return c, err
	}
	data, err := fsx.ReadFile(path, MaxConfigFile)
	if err != nil {
		return nil, fail.Wrap(fail.Config, err, "", "cannot read %s", path)
	}
	f := ParseFile(path, SourceProject, data)
	if f.Err != nil {
		return nil, &fail.Error{Code: fail.Config, Msg: f.Err.Error(), Hint: "fix the file before trusting it", Err: f.Err}
	}
	if c.Had, err = t.Set(ctx, path, f.Hash, now); err != nil {
		return nil, err
	}
	c.SHA256, c.Trusted, c.Servers, c.Parsed = f.Hash, true, f.Names, f
	return c, nil
}
