package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/cards"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// errCardDrift ends a card check that found a difference: exit 1, the
// differences already printed.
var errCardDrift = &fail.Error{Code: fail.Drift, Msg: "the server contradicts its Server Card"}

func cardCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:  "card",
		Usage: "work with MCP Server Cards (SEP-2127, draft): check one against its server",
		Description: `A Server Card describes a remote server before anyone connects: its name,
version, transport and URL. mcpc discover lists the cards a domain
advertises; mcpc config add NAME --card URL makes an entry of one.`,
		Commands: []*cli.Command{cardCheckCommand(st)},
	}
}

func cardCheckCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "compare a server's Server Card with what the server says once connected",
		ArgsUsage: "SERVER [CARD-URL]",
		Description: `Fetches the card (CARD-URL, by default the server's own: its URL +
/server-card; bounded as mcpc discover fetches), connects, and compares
what the card declares with what the server says: serverInfo's name (whole,
or the part of the card's reverse-DNS name after the slash), version,
title, description and websiteUrl where both give one; and of the card's
remote at the server's URL, its transport and supportedProtocolVersions
(which must hold the revision spoken). A card lists no tools, so none are
compared. Prints the differences (--json: {"server":…,"card":…,
"differences":[{"field","card","server"}]}) and exits 1 when there is one,
as mcpc diff does; 0 when the card holds.`,
		Metadata: helptext.Examples(
			"does the server's own card say what the server does?", "mcpc card check weather",
			"a card published elsewhere", "mcpc card check weather https://example.com/cards/weather.json",
		),
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			server, rest, err := g.adhoc.Target(cmd.Args().Slice())
			if err == nil {
				err = noMoreThan(rest, 1, "")
			}
			if err != nil {
				return err
			}
			o := cardCheckOptions{server: server, structured: g.structured()}
			if len(rest) == 1 {
				o.card = rest[0]
			}
			return runCardCheck(ctx, st.runIO(g), o)
		}),
	}
}

type cardCheckOptions struct {
	server, card string // card "": the server's URL + /server-card
	structured   bool
}

// cardCheck is what card check prints as JSON.
type cardCheck struct {
	Server      string             `json:"server"`
	Card        string             `json:"card"`
	Differences []cards.Difference `json:"differences"`
}

func runCardCheck(ctx context.Context, rio runIO, o cardCheckOptions) error {
	e, err := rio.entry(o.server, httpOnly)
	if err != nil {
		return err
	}
	if o.card == "" {
		o.card = strings.TrimSuffix(e.Server.URL, "/") + "/server-card"
	}
	card, err := cards.FetchCard(ctx, o.card)
	if err != nil {
		return err
	}
	sess, closeFn, err := rio.openEntry(ctx, e)
	if err != nil {
		return err
	}
	defer closeFn()
	live := cards.Live{URL: e.Server.URL, SSE: sess.speaksSSE()}
	if r := sess.initializeResult(); r != nil {
		live.Info, live.Revision = r.ServerInfo, r.ProtocolVersion
	}
	res := cardCheck{Server: e.ShownName(), Card: urlx.Redact(o.card), Differences: cards.Compare(card, live)}
	if res.Differences == nil {
		res.Differences = []cards.Difference{}
	}
	if err := printCardCheck(rio, o, res); err != nil {
		return err
	}
	if len(res.Differences) > 0 {
		return errCardDrift
	}
	return nil
}

func printCardCheck(rio runIO, o cardCheckOptions, res cardCheck) error {
	if o.structured {
		return rio.print(format.KindGeneric, res)
	}
	if len(res.Differences) == 0 {
		return rio.write(fmt.Appendf(nil, "%s agrees with its Server Card %s\n", textsafe.Name(res.Server), res.Card))
	}
	var b strings.Builder
	for _, d := range res.Differences {
		fmt.Fprintf(&b, "%s: card %q, server %q\n", d.Field, textsafe.OneLine(d.Card), textsafe.OneLine(d.Server))
	}
	return rio.write([]byte(b.String()))
}

// httpOnly refuses a stdio server: a Server Card describes remotes only.
func httpOnly(e *config.Entry) error {
	if e.Server.URL == "" {
		return usagef("a Server Card describes a remote (HTTP) server", "%s is a stdio server, which has no Server Card", e.ShownName())
	}
	return nil
}
