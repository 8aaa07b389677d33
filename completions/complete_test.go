package completions

import (
	"slices"
	"testing"

	"github.com/urfave/cli/v3"
)

// fake answers like mcpc's source: servers first, then tools.
type fake struct{ got []Request }

func (f *fake) FlagValues(r Request, flag string) []Candidate {
	f.got = append(f.got, r)
	if flag == "config" {
		return Files
	}
	return []Candidate{{Value: "auto"}, {Value: "2025-11-25"}}
}

func (f *fake) Args(r Request) []Candidate {
	f.got = append(f.got, r)
	if len(r.Positional) == 0 {
		return []Candidate{{Value: "local"}, {Value: "remote"}}
	}
	return []Candidate{{Value: "echo"}, {Value: "escape"}, {Value: "add"}}
}

func tree() *cli.Command {
	return &cli.Command{
		Name: "mcpc",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json"},
			&cli.StringFlag{Name: "protocol"},
			&cli.StringSliceFlag{Name: "config"},
			&cli.BoolFlag{Name: "version", Local: true},
		},
		Commands: []*cli.Command{
			{Name: "list", Aliases: []string{"ls"}, Usage: "list things"},
			{Name: "call", Usage: "call a tool", Flags: []cli.Flag{&cli.StringFlag{Name: "args", Aliases: []string{"a"}}}},
			{Name: "__complete", Hidden: true},
		},
	}
}

func values(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Value)
	}
	return out
}

func TestComplete(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  []string
	}{
		{nil, []string{"list", "call"}},
		{[]string{""}, []string{"list", "call"}},
		{[]string{"c"}, []string{"call"}},
		{[]string{"--json", "l"}, []string{"list"}},
		// Root flags, --version only at the root.
		{[]string{"--"}, []string{"--config", "--help", "--json", "--protocol", "--version"}},
		{[]string{"--v"}, []string{"--version"}},
		{[]string{"call", "--v"}, nil},
		{[]string{"call", "--a"}, []string{"--args"}},
		// Servers, then names; flag values skipped over.
		{[]string{"call", ""}, []string{"local", "remote"}},
		{[]string{"ls", "--protocol", "auto", "r"}, []string{"remote"}},
		{[]string{"call", "local", "e"}, []string{"echo", "escape"}},
		{[]string{"call", "--protocol=auto", "local", "a"}, []string{"add"}},
		// Flag values, spaced or joined.
		{[]string{"--protocol", "a"}, []string{"auto"}},
		{[]string{"--protocol=2"}, []string{"--protocol=2025-11-25"}},
		{[]string{"call", "--config", ""}, []string{FilesDirective}},
		{[]string{"--config=x"}, []string{FilesDirective}},
		// After a lone --, the words are a server command: nothing.
		{[]string{"call", "--", "node", ""}, nil},
		// Hidden commands are neither offered nor entered.
		{[]string{"__"}, nil},
	} {
		got := values(Complete(tree(), tc.words, &fake{}))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.words, got, tc.want)
		}
	}
}

// The source learns the command path, the positional words and the flags
// given so far.
func TestCompleteRequest(t *testing.T) {
	f := &fake{}
	Complete(tree(), []string{"call", "--config", "a.json", "--config=b.json", "local", "echo", "te"}, f)
	r := f.got[len(f.got)-1]
	if !slices.Equal(r.Path, []string{"call"}) || !slices.Equal(r.Positional, []string{"local", "echo"}) ||
		r.Current != "te" || !slices.Equal(r.Flags["config"], []string{"a.json", "b.json"}) {
		t.Errorf("request: path %q positional %q current %q flags %q", r.Path, r.Positional, r.Current, r.Flags)
	}
}

func TestScripts(t *testing.T) {
	for _, sh := range Shells {
		if s, err := Script(sh); err != nil || s == "" {
			t.Errorf("%s: %v", sh, err)
		}
	}
	if _, err := Script("tcsh"); err == nil {
		t.Error("tcsh: no error")
	}
}
