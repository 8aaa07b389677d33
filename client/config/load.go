package config

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/suggest"
)

// LoadOptions says where to look for configuration.
type LoadOptions struct {
	Dirs        Dirs
	Cwd         string
	ConfigFiles []string // --config flags, then MCPC_CONFIG entries
}

// Entry is one usable server definition and the file it came from.
type Entry struct {
	Name   string
	Server *Server
	File   *File // nil for ad-hoc targets
}

// Source is where the entry came from, for listings and messages.
func (e *Entry) SourceName() string {
	if e.File == nil {
		return "command line"
	}
	return e.File.Path
}

// ConfigDir is the directory of the file the entry comes from (cwd for
// the command line): file names in an entry start there.
func (e *Entry) ConfigDir(cwd string) string {
	if e.File == nil {
		return cwd
	}
	return filepath.Dir(e.File.Path)
}

// Dir is the directory relative paths in the entry are resolved against.
func (e *Entry) Dir(cwd string) string {
	if e.File == nil || e.File.Source != SourceProject {
		return cwd
	}
	return filepath.Dir(e.File.Path)
}

// Config is the merged view of every config source.
type Config struct {
	UserFile     string  // where the user's own servers go, for hints
	Files        []*File // usable files, lowest precedence first
	Project      *File   // the project file found upwards, even if untrusted
	ProjectTrust TrustState
	Servers      map[string]*Entry
}

// FindProjectFile looks for .mcp.json from cwd upwards, stopping after the
// repository root (a directory holding .git) or the home directory, so a
// file far up the tree never applies by accident. It never looks in a
// directory anyone may write to or that another user owns (a shared /tmp),
// and ignores a file another user owns.
func FindProjectFile(cwd, home string) string {
	dir := cwd
	for {
		if !searchable(dir) {
			return ""
		}
		p := filepath.Join(dir, ".mcp.json")
		if st, err := os.Lstat(p); err == nil && !st.IsDir() && ownFile(p) {
			return p
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return ""
		}
		if home != "" && dir == filepath.Clean(home) {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Load reads every source. An error in a file the user chose (their own
// config file, --config, MCPC_CONFIG) fails the load. A project file is
// only found, and may be written for another MCP client or be no file at
// all (a FIFO): one mcpc cannot read or parse never fails the load; its
// reason is kept in Project.Err, for Unusable and Lookup. An untrusted
// project file is parsed only so its server names can be mentioned.
func Load(opts LoadOptions) (*Config, error) {
	c := &Config{UserFile: opts.Dirs.UserConfigFile(), Servers: map[string]*Entry{}}
	add := func(f *File) error {
		if f == nil {
			return nil
		}
		if f.Err != nil {
			return f.Err
		}
		c.Files = append(c.Files, f)
		for _, name := range f.Names {
			c.Servers[name] = &Entry{Name: name, Server: f.Servers[name], File: f}
		}
		return nil
	}
	user, err := readConfigFile(opts.Dirs.UserConfigFile(), SourceUser)
	if err != nil {
		return nil, err
	}
	if err := add(user); err != nil {
		return nil, err
	}
	if p := FindProjectFile(opts.Cwd, opts.Dirs.Home); p != "" {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		proj := readProjectFile(p)
		c.Project = proj
		if proj != nil && proj.Err == nil {
			c.ProjectTrust, err = TrustStore{opts.Dirs.State}.State(p, proj.Hash)
			if err != nil {
				return nil, err
			}
			if c.ProjectTrust == Trusted {
				if err := add(proj); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, p := range opts.ConfigFiles {
		if !filepath.IsAbs(p) {
			p = filepath.Join(opts.Cwd, p)
		}
		f, err := readConfigFile(p, SourceFlag)
		if err != nil {
			return nil, err
		}
		if f == nil {
			return nil, fail.New(fail.Config, "check the path given to --config or MCPC_CONFIG", "config file %s does not exist", p)
		}
		if err := add(f); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// readProjectFile reads the project file at p; nil when it vanished since
// the search. A read error is kept in the File, worded as ParseFile words
// its errors ("PATH: reason", "PATH:LINE:COL: reason"), so that every
// Project.Err begins with the path: the read error's own path and
// operation ("cannot read config file P: read P: …") would repeat it.
func readProjectFile(p string) *File {
	f, err := readConfigFile(p, SourceProject)
	if err == nil {
		return f
	}
	return &File{Path: p, Source: SourceProject, Err: fail.Wrap(fail.Config, fsx.Reason(err), "", "%s", p)}
}

// UnusableFile is a config file that was found but not loaded, and why.
type UnusableFile struct {
	File    string `json:"file"`
	Message string `json:"message"` // begins with File, as a config error does
}

// Unusable lists the files found but not loaded because they cannot be
// used. Only a project file can be one: any other that fails fails Load.
func (c *Config) Unusable() []UnusableFile {
	if c.Project == nil || c.Project.Err == nil {
		return nil
	}
	return []UnusableFile{{File: c.Project.Path, Message: c.Project.Err.Error()}}
}

// Note names the file and why it is not used, for a "mcpc: note:" line.
func (u UnusableFile) Note() string { return "ignoring project file " + u.Message }

// projectDefines reports whether the (untrusted) project file names server.
func (c *Config) projectDefines(name string) bool {
	if c.Project == nil || c.Project.Err != nil {
		return false
	}
	_, ok := c.Project.Servers[name]
	return ok
}

// UntrustedNote returns a warning when name resolves from another source
// while an untrusted project file also defines it (so the user knows the
// project's definition was ignored), or "".
func (c *Config) UntrustedNote(name string) string {
	if c.ProjectTrust != Trusted && c.projectDefines(name) {
		return fmt.Sprintf("ignoring server %q from %s project file %s (run 'mcpc trust' to use it)", name, c.ProjectTrust, c.Project.Path)
	}
	return ""
}

// Lookup finds a configured server by name, explaining precisely why a name
// that the user can see in a file cannot be used.
func (c *Config) Lookup(name string) (*Entry, error) {
	if e, ok := c.Servers[name]; ok {
		if err := e.refusal(); err != nil {
			return nil, err
		}
		return e, nil
	}
	if c.ProjectTrust != Trusted && c.projectDefines(name) {
		hint := "review the file, then run: mcpc trust " + shellwords.Quote(c.Project.Path)
		if c.ProjectTrust == Changed {
			return nil, fail.New(fail.Untrusted, hint, "project file %s changed since it was trusted; server %q will not be started until it is trusted again", c.Project.Path, name)
		}
		return nil, fail.New(fail.Untrusted, hint, "server %q is defined in the untrusted project file %s", name, c.Project.Path)
	}
	if c.Project != nil && c.Project.Err != nil {
		// The name may be the broken file's: its reason, not "unknown
		// server", says what to do.
		return nil, &fail.Error{Code: fail.Config, Err: c.Project.Err,
			Msg:  fmt.Sprintf("server %q: cannot use project file %s", name, c.Project.Err),
			Hint: "fix the file, then run: mcpc trust " + shellwords.Quote(c.Project.Path)}
	}
	names := slices.Sorted(maps.Keys(c.Servers))
	hint := "add it to " + c.UserFile + " or a project .mcp.json, or pass an https:// URL or --stdio 'command args'"
	if len(names) > 0 {
		hint = "configured servers: " + strings.Join(names, ", ")
		hint = suggest.Hint(name, names, hint)
	}
	return nil, fail.New(fail.Config, hint, "unknown server %q", name)
}
