package commands

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/cards"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/helptext"
)

func discoverCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "discover",
		Usage:     "list the MCP servers a domain's catalog advertises, from their Server Cards (SEP-2127, draft)",
		ArgsUsage: "DOMAIN | URL",
		Description: `Reads the domain's AI Catalog (https://DOMAIN/.well-known/ai-catalog.json; when
that is missing, the MCP Catalog of earlier drafts, /.well-known/mcp/catalog.json),
then the Server Card of each entry whose type is application/mcp-server-card+json
(its url, fetched with that Accept type, or its inline data), and prints each
server: name, title, version, transport and URL (--json: {"catalog":…,
"servers":[…]}). A URL with a path is fetched as it is: a catalog, or one card
(a server's own is at its streamable HTTP URL + /server-card). Nothing connects
to the servers; a card says where a server is, not what it does (mcpc card check
compares it with the server). Every document is fetched over https (plain http
only on loopback), following redirects only within its origin, at most 1 MiB and
64 levels deep, each within 30s and --timeout. A card that cannot be read is a
row with its error, and the exit status is that failure's (5: unreachable, not
a card, too large, redirected elsewhere).`,
		Metadata: helptext.Examples(
			"the servers example.com advertises", "mcpc discover example.com",
			"one server's card", "mcpc discover https://mcp.example.com/mcp/server-card",
			"add one of them to the config", "mcpc config add weather --card https://example.com/weather/server-card",
		),
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			if err := justOne(cmd.Args().Slice(), "", "DOMAIN or URL"); err != nil {
				return err
			}
			return runDiscover(ctx, st.runIO(g), discoverOptions{arg: cmd.Args().First(), structured: g.structured(), width: st.env.Width})
		}),
	}
}

type discoverOptions struct {
	arg        string
	structured bool // print cards.Found as JSON (or --query of it)
	width      int  // the terminal's, for the text table
}

// runDiscover prints what cards.Discover found, then returns its failure
// (the rows of cards that could not be read say why).
func runDiscover(ctx context.Context, rio runIO, o discoverOptions) error {
	found, err := cards.Discover(ctx, o.arg)
	if found == nil {
		return err
	}
	var perr error
	if o.structured {
		perr = rio.print(format.KindGeneric, found)
	} else {
		rows := make([]format.CardRow, len(found.Servers))
		for i, s := range found.Servers {
			rows[i] = format.CardRow{Name: s.Name, Title: s.Title, Version: s.Version, Transport: s.Transport, URL: s.URL, Error: s.Error}
			if s.Error != "" {
				rows[i].Name = s.Identifier
			}
		}
		perr = rio.write(format.CardsText(rows, o.width))
	}
	if perr != nil {
		return perr
	}
	return err
}
