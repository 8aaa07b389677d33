package commands

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/creds"
	"github.com/mcpc-dev/mcpc/internal/helptext"
)

func configClientMetadataCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "client-metadata",
		Usage:     "print the OAuth client metadata document to publish for \"clientMetadataUrl\"",
		ArgsUsage: "URL",
		Description: `Prints the OAuth Client ID Metadata Document (SEP-991) that describes mcpc
at URL, the https address it is to be published at and the "clientMetadataUrl"
of the servers' "auth" blocks: a native public client whose login redirect
goes to 127.0.0.1 (any port, or --redirect-port, the entries'
"redirectPort"). The authentication method "none" is given both as the list
token_endpoint_auth_methods_supported (SEP-3149, a draft, makes it required)
and as the singular token_endpoint_auth_method older servers read.`,
		Metadata: helptext.Examples(
			"the document to publish at https://example.com/mcpc.json", "mcpc config client-metadata https://example.com/mcpc.json > mcpc.json",
		),
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "redirect-port", Usage: "the login's receiver listens on `PORT` (the entries' \"redirectPort\")"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := justOne(cmd.Args().Slice(), "give the https URL the document is published at", "URL"); err != nil {
				return err
			}
			port := cmd.Int("redirect-port")
			if port < 0 || port > 65535 {
				return usagef("give a port from 1 to 65535", "--redirect-port %d is not a port", port)
			}
			doc, err := creds.ClientMetadata(cmd.Args().First(), int(port))
			if err != nil {
				return usagef("publish it at an https URL with a path, e.g. https://example.com/mcpc/client.json", "%v", err)
			}
			_, err = st.env.Stdout.Write(append(doc, '\n'))
			return err
		},
	}
}
