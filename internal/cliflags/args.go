package cliflags

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v3"
)

// HelpArgs turns a command line (args[0] the program) holding --help or -h
// anywhere into a request for the help of the command it names: "mcpc call
// SERVER TOOL --help" shows the help of call instead of reading SERVER as
// a help topic.
func HelpArgs(root *cli.Command, args []string) []string {
	if !slices.Contains(args[1:], "--help") && !slices.Contains(args[1:], "-h") {
		return args
	}
	out := []string{args[0]}
	cmd := root
	for _, a := range args[1:] {
		if sub := cmd.Command(a); sub != nil && !strings.HasPrefix(a, "-") {
			out = append(out, a)
			cmd = sub
		}
	}
	return append(out, "--help")
}

// SplitDash cuts args at the first lone "--": the words after it are
// someone else's (mcpc's ad-hoc stdio server command), never flags.
func SplitDash(args []string) (own, dash []string) {
	if i := slices.Index(args, "--"); i >= 0 {
		return args[:i], append([]string{}, args[i+1:]...)
	}
	return args, nil
}
