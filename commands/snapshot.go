package commands

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/helptext"
)

func snapshotCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "snapshot",
		Usage:     "write a stable JSON document of a server's tools, prompts and resource templates, for mcpc diff",
		ArgsUsage: "SERVER",
		Description: `Lists every page of the server's tools (name, title, description, input
and output schemas, annotations, execution.taskSupport), prompts (with their
arguments) and resource templates, and writes them as one JSON document:
keys sorted, lists sorted by name, "required" and "type" arrays sorted, no
timestamp, cursor, cache hint or _meta, so that two snapshots of the same
server are the same bytes. "mcpcSnapshot" is the format version, which later
mcpc versions keep reading. The document is always JSON and never cut
(--max-bytes does not apply; --query selects part of it as usual); it is
indented down to 32 levels and compact below, and compact throughout if
indented it would pass the 64 MiB mcpc diff reads (over that even so:
exit 5). A kind the server does not declare is an empty list. Compare it
later with mcpc diff.`,
		Metadata: helptext.Examples(
			"record a server's tools for a later comparison", "mcpc snapshot github > github.snapshot.json",
			"a stdio server", "mcpc snapshot --stdio 'npx -y @modelcontextprotocol/server-everything' > everything.snapshot.json",
		),
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			server, err := snapshotArgs(g, cmd.Args().Slice())
			if err != nil {
				return err
			}
			return runSnapshot(ctx, st.runIO(g), server, g.query != "")
		}),
	}
}

// snapshotArgs reads SERVER, the one word snapshot takes.
func snapshotArgs(g *globals, args []string) (string, error) {
	server, rest, err := g.adhoc.Target(args)
	if err == nil {
		err = noMoreThan(rest, 0, "write the document to a file with: mcpc snapshot SERVER > FILE")
	}
	return server, err
}

// runSnapshot writes the server's snapshot, or (queried) a --query of it.
func runSnapshot(ctx context.Context, rio runIO, server string, queried bool) error {
	snap, err := takeSnapshot(ctx, rio, server)
	if err != nil {
		return err
	}
	b, err := snap.Marshal()
	if err != nil {
		return fail.New(fail.TooLarge, "leave tools out with \"excludeTools\" in the server's config entry", "%v", err)
	}
	if queried {
		return rio.printRaw(format.KindGeneric, b)
	}
	// Written as it is: the document is for a file, and is compared
	// byte for byte by people who keep it in git.
	return rio.write(b)
}
