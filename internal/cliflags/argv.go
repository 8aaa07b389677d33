package cliflags

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/urfave/cli/v3"
)

// Bool is the value urfave/cli would give the boolean flag name when it
// parses args (the words after the program's name) with root, decided
// before root runs: what must be known before any action, such as whether
// a failure is reported as JSON, then agrees with what the actions read.
// It follows urfave/cli's rules: a first argument naming a subcommand
// descends into it, a later one ends the flags; a flag that takes a value takes the next word unless written
// --flag=value ("--query --json" sets no --json); a boolean reads "=value"
// as strconv.ParseBool does (--json=1); the last setting wins; "--" and a
// word like "-1" end the flags. Where urfave/cli stops at a flag it does
// not know or a value it refuses, the walk goes on, so that a --json
// further on still asks for a JSON report of that error.
func Bool(root *cli.Command, args []string, name string) bool {
	lineage := []*cli.Command{root}
	idx := applied(lineage)
	value, positional := false, 0
	for i := 0; i < len(args); i++ {
		word := strings.TrimSpace(args[i])
		switch {
		case word == "--":
			return value
		case word == "" || word == "-":
			positional++
			continue
		case word[0] != '-':
			sub := lineage[len(lineage)-1].Command(word)
			switch {
			case sub == nil:
				positional++
			case positional > 0:
				return value // an argument of this command's action: no flags follow
			default:
				lineage, positional = append(lineage, sub), 0
				idx = applied(lineage)
			}
			continue
		}
		flag := word[1:]
		if flag[0] == '-' {
			flag = flag[1:]
		} else if r, _ := utf8.DecodeRuneInString(flag); !unicode.IsLetter(r) {
			return value // not a flag: the flags end here
		}
		flag, val, hasVal := strings.Cut(flag, "=")
		if hasVal {
			_, val, _ = strings.Cut(args[i], "=")
		}
		f := idx[flag]
		switch {
		case f == nil:
		case isBool(f):
			if f != idx[name] {
				continue
			}
			if val == "" {
				val = "true"
			}
			if b, err := strconv.ParseBool(val); err == nil {
				value = b
			}
		case !hasVal:
			i++ // the next word is the flag's value, whatever it looks like
		}
	}
	return value
}

// applied is the index of the flags the last command of lineage parses:
// its own, then those its ancestors do not keep to themselves.
func applied(lineage []*cli.Command) Index {
	idx := Index{}
	for i := len(lineage) - 1; i >= 0; i-- {
		idx.add(lineage[i], i < len(lineage)-1)
	}
	return idx
}

// isBool is urfave/cli's test for a flag that takes no value; IsBoolFlag
// itself answers only once the tree has run, so it asks TakesValue.
func isBool(f cli.Flag) bool {
	v, ok := f.(interface{ TakesValue() bool })
	return ok && !v.TakesValue()
}
