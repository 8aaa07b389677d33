package cliflags

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// tree is a small command tree shaped like mcpc's: a persistent boolean
// and a string with an alias on the root, a flag the root keeps to itself,
// and a subcommand with a value flag of its own.
func tree(got *bool) *cli.Command {
	action := func(_ context.Context, cmd *cli.Command) error {
		*got = cmd.Bool("json")
		return nil
	}
	return &cli.Command{
		Name: "mcpc", Writer: io.Discard, ErrWriter: io.Discard, HideHelp: true, HideHelpCommand: true,
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json"},
			&cli.StringFlag{Name: "query", Aliases: []string{"q"}},
			&cli.BoolFlag{Name: "version", Local: true},
		},
		Action: action,
		Commands: []*cli.Command{{
			Name: "call", Action: action,
			Flags: []cli.Flag{&cli.StringFlag{Name: "args"}, &cli.BoolFlag{Name: "yes"}},
		}},
	}
}

// parsed is what urfave/cli itself sets --json to, and whether it parsed
// the line without an error.
func parsed(args []string) (json, ok bool) {
	root := tree(&json)
	err := root.Run(context.Background(), append([]string{"mcpc"}, args...))
	return json, err == nil
}

func TestBoolAgreesWithParse(t *testing.T) {
	for _, line := range []string{
		"--json", "-json", "--json=1", "--json=t", "--json=TRUE", "--json=", "--json=false", "--json=0",
		"--json --json=false", "--json=false --json",
		"--query x --json", "--query --json", "-q --json", "--query=--json", "--query= --json",
		"call srv tool --json", "call --args --json srv", "call --args=x --json", "call srv --yes --json=1",
		"srv call --json", "-1 --json", "call -1 --json", "x -- --json", " --json ",
	} {
		args := strings.Fields(line)
		want, ok := parsed(args)
		if !ok {
			t.Fatalf("%q: urfave/cli refused the line", line)
		}
		if got := Bool(tree(new(bool)), args, "json"); got != want {
			t.Errorf("Bool(%q) = %v; urfave/cli parses --json as %v", line, got, want)
		}
	}
}

// TestBoolPastErrors: where urfave/cli gives up on the line, a --json
// further on still counts, and a refused value sets nothing.
func TestBoolPastErrors(t *testing.T) {
	for line, want := range map[string]bool{
		"--bogus --json":           true,
		"call --version --json":    true, // --version is the root's own
		"--json=maybe":             false,
		"--json --json=maybe":      true,
		"call --args":              false,
		"--query":                  false,
		"--json call --bogus":      true,
		"--json=1 call --args x -": true,
	} {
		if got := Bool(tree(new(bool)), strings.Fields(line), "json"); got != want {
			t.Errorf("Bool(%q) = %v, want %v", line, got, want)
		}
	}
}

// FuzzBool: on every line urfave/cli accepts, Bool agrees with it; on any
// line, it returns.
func FuzzBool(f *testing.F) {
	for _, s := range []string{"--json", "--query --json", "call --args --json x", "--json=1 -q x", "-1 --json"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		got := Bool(tree(new(bool)), args, "json")
		if want, ok := parsed(args); ok && got != want {
			t.Errorf("Bool(%q) = %v; urfave/cli parses --json as %v", line, got, want)
		}
	})
}
