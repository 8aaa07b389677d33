package commands

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
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
		Metadata: examples(
			"record a server's tools for a later comparison", "mcpc snapshot github > github.snapshot.json",
			"a stdio server", "mcpc snapshot --stdio 'npx -y @modelcontextprotocol/server-everything' > everything.snapshot.json",
		),
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			server, rest, err := target(g, cmd.Args().Slice())
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usagef("write the document to a file with: mcpc snapshot SERVER > FILE", "unexpected argument %q", rest[0])
			}
			return st.runSnapshot(ctx, g, server)
		}),
	}
}

func (st *state) runSnapshot(ctx context.Context, g *globals, server string) error {
	snap, err := takeSnapshot(ctx, st.runIO(g), server)
	if err != nil {
		return err
	}
	b, err := snap.Marshal()
	if err != nil {
		return fail.New(fail.TooLarge, "leave tools out with \"excludeTools\" in the server's config entry", "%v", err)
	}
	if g.query != "" {
		return st.runIO(g).printRaw(format.KindGeneric, b)
	}
	// Written as it is: the document is for a file, and is compared
	// byte for byte by people who keep it in git.
	return st.runIO(g).write(b)
}
