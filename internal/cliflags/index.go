// Package cliflags reads urfave/cli flags without urfave/cli's per-lookup
// cost, and decides a flag's value from argv before the tree runs.
package cliflags

import (
	"time"

	"github.com/urfave/cli/v3"
)

// Index answers the flag lookups of one command from one walk of its
// flags, as cmd.Value does: the command's own flags first, then its
// ancestors', the first flag bearing the name. urfave/cli walks every flag
// of the lineage and builds each one's list of names again on every
// lookup; the thirty-odd lookups every invocation makes for the shared
// flags (readGlobals, readInput) were 7 % of the instructions of a call
// through a session.
type Index map[string]cli.Flag

// Of indexes the flags of cmd and its ancestors.
func Of(cmd *cli.Command) Index {
	idx := Index{}
	for _, c := range cmd.Lineage() {
		idx.add(c, false)
	}
	return idx
}

// add indexes c's flags (and those of its mutually exclusive groups) not
// already indexed; inherited leaves out the flags c keeps to itself.
func (x Index) add(c *cli.Command, inherited bool) {
	fs := c.Flags
	for _, group := range c.MutuallyExclusiveFlags {
		for _, g := range group.Flags {
			fs = append(fs[:len(fs):len(fs)], g...)
		}
	}
	for _, f := range fs {
		if l, ok := f.(cli.LocalFlag); inherited && ok && l.IsLocal() {
			continue
		}
		for _, n := range f.Names() {
			if _, ok := x[n]; !ok {
				x[n] = f
			}
		}
	}
}

// Value is cmd.Value: the flag's value, nil for a name no flag bears.
func (x Index) Value(name string) any {
	if f := x[name]; f != nil {
		return f.Get()
	}
	return nil
}

func (x Index) Bool(name string) bool {
	v, _ := x.Value(name).(bool)
	return v
}

func (x Index) String(name string) string {
	v, _ := x.Value(name).(string)
	return v
}

func (x Index) Int(name string) int {
	v, _ := x.Value(name).(int)
	return v
}

func (x Index) Duration(name string) time.Duration {
	v, _ := x.Value(name).(time.Duration)
	return v
}

func (x Index) StringSlice(name string) []string {
	v, _ := x.Value(name).([]string)
	return v
}

// IsSet is cmd.IsSet: set on the command line or from its sources.
func (x Index) IsSet(name string) bool {
	f := x[name]
	return f != nil && f.IsSet()
}
