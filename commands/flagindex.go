package commands

import (
	"time"

	"github.com/urfave/cli/v3"
)

// flagIndex answers the flag lookups of one command from one walk of its
// flags, as cmd.Value does: the command's own flags first, then its
// ancestors', the first flag bearing the name. urfave/cli walks every flag
// of the lineage and builds each one's list of names again on every
// lookup; the thirty-odd lookups every invocation makes for the shared
// flags (readGlobals, readInput) were 7 % of the instructions of a call
// through a session.
type flagIndex map[string]cli.Flag

func indexFlags(cmd *cli.Command) flagIndex {
	idx := flagIndex{}
	add := func(f cli.Flag) {
		for _, n := range f.Names() {
			if _, ok := idx[n]; !ok {
				idx[n] = f
			}
		}
	}
	for _, c := range cmd.Lineage() {
		for _, f := range c.Flags {
			add(f)
		}
		for _, group := range c.MutuallyExclusiveFlags {
			for _, fs := range group.Flags {
				for _, f := range fs {
					add(f)
				}
			}
		}
	}
	return idx
}

// Value is cmd.Value: the flag's value, nil for a name no flag bears.
func (x flagIndex) Value(name string) any {
	if f := x[name]; f != nil {
		return f.Get()
	}
	return nil
}

func (x flagIndex) Bool(name string) bool {
	v, _ := x.Value(name).(bool)
	return v
}

func (x flagIndex) String(name string) string {
	v, _ := x.Value(name).(string)
	return v
}

func (x flagIndex) Int(name string) int {
	v, _ := x.Value(name).(int)
	return v
}

func (x flagIndex) Duration(name string) time.Duration {
	v, _ := x.Value(name).(time.Duration)
	return v
}

func (x flagIndex) StringSlice(name string) []string {
	v, _ := x.Value(name).([]string)
	return v
}

// IsSet is cmd.IsSet: set on the command line or from its sources.
func (x flagIndex) IsSet(name string) bool {
	f := x[name]
	return f != nil && f.IsSet()
}
