package config

import (
	"maps"
	"slices"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// Target is one server of a command that reaches several (mcpc grep,
// mcpc list --check): its entry, or why it is not started.
type Target struct {
	// Name is how output names it: the entry's ShownName, or the name
	// given.
	Name  string
	Entry *Entry // nil: not started (Skip says why)
	// Server is the definition, when there is one, for listings: a skipped
	// server still shows its transport.
	Server *Server
	Skip   string // "untrusted", "disabled" or "unusable"; "" when started
	Err    error  // the failure Skip stands for
	// Named says the user asked for this server: one that is not started
	// is then a failure, not only a row.
	Named bool
}

// Targets picks the servers of a many-server command: with names, those
// (a URL too, each once); with an ad-hoc --stdio command, that one; else
// every configured server, sorted by name, and those of an untrusted
// project file, which are listed, never started. An unknown name fails
// here, before anything connects.
func (c *Config) Targets(names []string, a AdHoc) ([]Target, error) {
	switch {
	case a.IsStdio():
		if len(names) > 0 {
			return nil, fail.New(fail.Usage, "give either server names or a --stdio command, not both", "unexpected argument %q with --stdio", names[0])
		}
		t, err := c.target("", true, a)
		return []Target{t}, err
	case len(names) > 0:
		var out []Target
		seen := map[string]bool{}
		for _, n := range names {
			if seen[n] {
				continue
			}
			seen[n] = true
			t, err := c.target(n, true, a)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		return out, nil
	}
	all := slices.Collect(maps.Keys(c.Servers))
	if p := c.Project; p != nil && c.ProjectTrust != Trusted && p.Err == nil {
		for _, n := range p.Names {
			if c.Servers[n] == nil {
				all = append(all, n)
			}
		}
	}
	slices.Sort(all)
	var out []Target
	for _, n := range all {
		t, err := c.target(n, false, a)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// target resolves one name for Targets: an error only for a name nothing
// defines.
func (c *Config) target(name string, named bool, a AdHoc) (Target, error) {
	t := Target{Name: name, Named: named}
	e, err := c.Resolve(name, a)
	switch {
	case err == nil:
		t.Entry, t.Name, t.Server = e, e.ShownName(), e.Server
		return t, nil
	case fail.CodeOf(err) == fail.Untrusted:
		t.Skip, t.Err = "untrusted", err
		if p := c.Project; p != nil {
			t.Server = p.Servers[name]
		}
		return t, nil
	}
	if known := c.Servers[name]; known != nil {
		t.Server = known.Server
		t.Skip, t.Err = "unusable", err
		if known.Server.Disabled {
			t.Skip = "disabled"
		}
		return t, nil
	}
	return t, err
}
