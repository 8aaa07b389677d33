package commands

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/helptext"
)

type readOptions struct {
	server string
	uri    string
}

func readCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "read",
		Usage:     "read a resource",
		ArgsUsage: "SERVER URI",
		Description: `Sends resources/read for URI and prints the contents: text as itself, binary
contents as type and size (saved to a file when large). The URIs a server
offers are in 'mcpc list SERVER resources'; 'mcpc list SERVER templates' shows
the patterns of the ones it makes on demand.`,
		Metadata: helptext.Examples(
			"a static resource", "mcpc read everything demo://resource/static/document/architecture.md",
			"only the text, for a pipe", "mcpc read everything demo://resource/static/document/architecture.md -q contents.0.text",
		),
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			o, err := readArgs(g, cmd.Args().Slice())
			if err != nil {
				return err
			}
			return runRead(ctx, st.runIO(g), o)
		}),
	}
}

// readArgs reads SERVER URI.
func readArgs(g *globals, args []string) (readOptions, error) {
	server, rest, err := g.adhoc.Target(args)
	if err != nil {
		return readOptions{}, err
	}
	if err := justOne(rest, "list resources with: mcpc list SERVER resources", "URI"); err != nil {
		return readOptions{}, err
	}
	return readOptions{server: server, uri: rest[0]}, nil
}

// runRead reads the resource and prints its contents.
func runRead(ctx context.Context, rio runIO, o readOptions) error {
	sess, closeFn, err := rio.open(ctx, o.server)
	if err != nil {
		return err
	}
	defer closeFn()
	res, err := sess.ReadResource(ctx, o.uri)
	if err != nil {
		return err
	}
	return rio.printRaw(format.KindReadResource, res)
}
