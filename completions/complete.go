package completions

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v3"
)

// Candidate is one completion: the word and a short description.
type Candidate struct {
	Value       string
	Description string
}

// Files is the answer that asks the shell to complete file names itself.
var Files = []Candidate{{Value: FilesDirective}}

// FilesDirective is printed alone on a line to mean Files.
const FilesDirective = ":files"

// Request is where the cursor stands: the command it is in, the
// positional words given to it so far, and the word being typed.
type Request struct {
	Root       *cli.Command
	Command    *cli.Command
	Path       []string // command names from the root: ["call"]
	Positional []string
	Current    string
	// Flags holds the values of the flags given so far, by name, for
	// answers that depend on them (--config).
	Flags map[string][]string
}

// Source answers what the command tree cannot: flag values and positional
// arguments. It returns Files, nil (nothing), or candidates; Complete
// keeps those that start with the word being typed.
type Source interface {
	FlagValues(r Request, flag string) []Candidate
	Args(r Request) []Candidate
}

// Complete returns the candidates for words, the command line after the
// program name up to the cursor; the last word is the one being typed
// (empty after a space).
func Complete(root *cli.Command, words []string, src Source) []Candidate {
	if len(words) == 0 {
		words = []string{""}
	}
	r := Request{Root: root, Command: root, Flags: map[string][]string{}}
	chain := []*cli.Command{root}
	done, cur := words[:len(words)-1], words[len(words)-1]
	r.Current = cur
	for i := 0; i < len(done); i++ {
		w := done[i]
		switch {
		case w == "--":
			// An ad-hoc server command follows: nothing of ours.
			return nil
		case strings.HasPrefix(w, "-") && len(w) > 1:
			name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			f := findFlag(chain, name)
			if f == nil || !takesValue(f) {
				continue
			}
			if !hasValue {
				if i+1 == len(done) {
					// The word being typed is this flag's value.
					return filter(src.FlagValues(r, f.Names()[0]), cur)
				}
				i++
				value = done[i]
			}
			r.Flags[f.Names()[0]] = append(r.Flags[f.Names()[0]], value)
		default:
			if len(r.Positional) == 0 {
				if sub := visibleCommand(r.Command, w); sub != nil {
					r.Command, r.Path = sub, append(r.Path, sub.Name)
					chain = append(chain, sub)
					continue
				}
			}
			r.Positional = append(r.Positional, w)
		}
	}
	if strings.HasPrefix(cur, "-") {
		if name, _, ok := strings.Cut(strings.TrimLeft(cur, "-"), "="); ok {
			// --flag=VALUE in one word: complete the value, keeping the
			// prefix so the shell replaces the whole word.
			f := findFlag(chain, name)
			if f == nil || !takesValue(f) {
				return nil
			}
			prefix := cur[:strings.Index(cur, "=")+1]
			r.Current = cur[len(prefix):]
			var out []Candidate
			for _, c := range filter(src.FlagValues(r, f.Names()[0]), r.Current) {
				if c.Value == FilesDirective {
					return Files
				}
				out = append(out, Candidate{prefix + c.Value, c.Description})
			}
			return out
		}
		return filter(flagCandidates(chain), cur)
	}
	if subs := Subcommands(r.Command); len(r.Positional) == 0 && len(subs) > 0 {
		var out []Candidate
		for _, c := range subs {
			out = append(out, Candidate{c.Name, c.Usage})
		}
		if len(r.Path) == 0 {
			// The root takes no arguments of its own.
			return filter(out, cur)
		}
		return filter(append(out, src.Args(r)...), cur)
	}
	return filter(src.Args(r), cur)
}

// filter keeps the candidates that start with prefix; Files passes.
func filter(cs []Candidate, prefix string) []Candidate {
	if len(cs) == 1 && cs[0].Value == FilesDirective {
		return cs
	}
	var out []Candidate
	for _, c := range cs {
		if strings.HasPrefix(c.Value, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// Subcommands are the commands below c that are not hidden. (urfave's
// VisibleCommands leaves out "help" too, which is worth completing.)
func Subcommands(c *cli.Command) []*cli.Command {
	var out []*cli.Command
	for _, sub := range c.Commands {
		if !sub.Hidden {
			out = append(out, sub)
		}
	}
	return out
}

func visibleCommand(c *cli.Command, name string) *cli.Command {
	for _, sub := range Subcommands(c) {
		if sub.HasName(name) {
			return sub
		}
	}
	return nil
}

// flags lists the flags that apply at the end of chain (root first): the
// last command's own, and those of every command above it that are not
// local to it.
func flags(chain []*cli.Command) []cli.Flag {
	var out []cli.Flag
	for i := len(chain) - 1; i >= 0; i-- {
		for _, f := range chain[i].Flags {
			if lf, ok := f.(cli.LocalFlag); ok && lf.IsLocal() && i != len(chain)-1 {
				continue
			}
			if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
				continue
			}
			out = append(out, f)
		}
	}
	return out
}

func findFlag(chain []*cli.Command, name string) cli.Flag {
	for _, f := range flags(chain) {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	d, ok := f.(cli.DocGenerationFlag)
	return ok && d.TakesValue()
}

func flagCandidates(chain []*cli.Command) []Candidate {
	var out []Candidate
	for _, f := range flags(chain) {
		usage := ""
		if d, ok := f.(cli.DocGenerationFlag); ok {
			usage = d.GetUsage()
		}
		for _, n := range f.Names() {
			if len(n) > 1 {
				out = append(out, Candidate{"--" + n, usage})
			}
		}
	}
	out = append(out, Candidate{"--help", "show help"})
	slices.SortFunc(out, func(a, b Candidate) int { return strings.Compare(a.Value, b.Value) })
	return slices.CompactFunc(out, func(a, b Candidate) bool { return a.Value == b.Value })
}
