package commands

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/man"
)

func manCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print mcpc's manual page (roff)",
		Description: `Prints the manual page, built from the same command tree as this help, with
the sections on configuration, exit status, environment, files and security.`,
		Metadata: helptext.Examples(
			"read the manual", "mcpc man | man -l -",
			"install it for man(1)", "mcpc man > ~/.local/share/man/man1/mcpc.1",
		),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noMoreThan(cmd.Args().Slice(), 0, ""); err != nil {
				return err
			}
			_, err := st.env.Stdout.Write(man.Text)
			return err
		},
	}
}

// ManSource is what the manual page is rendered from (by man/render, in
// the test that keeps man/mcpc.1 current). It uses a fresh command tree:
// running one adds --help flags everywhere, which the page need not repeat.
func ManSource() man.Page {
	root := newRoot(&state{})
	p := man.Page{Root: root}
	for _, t := range helptext.Topics {
		p.Topics = append(p.Topics, man.Section{Title: t.Title, Text: t.Body(helpValues())})
	}
	for _, c := range root.VisibleCommands() {
		for _, e := range helptext.ExamplesOf(c.Metadata) {
			p.Examples = append(p.Examples, man.Example{What: e.What, Line: e.Line})
		}
	}
	return p
}
