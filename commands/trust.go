package commands

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

func trustCommand(st *state, trust bool) *cli.Command {
	name, usage := "trust", "trust a project .mcp.json so its servers may run"
	desc := `Records the file's absolute path and SHA-256. Review the file first: a
project file names commands mcpc will execute and URLs it will contact. Any
change to the file makes it untrusted again. FILE defaults to the .mcp.json
found from the working directory upwards.`
	ex := helptext.Examples(
		"review the project's servers, then trust them", "cat .mcp.json && mcpc trust",
		"a file elsewhere", "mcpc trust ../other/.mcp.json",
	)
	if !trust {
		name, usage, desc = "untrust", "forget that a project .mcp.json was trusted", `Removes the record 'mcpc trust' made: the file's servers are ignored again.
FILE defaults to the .mcp.json found from the working directory upwards.`
		ex = helptext.Examples("stop using this project's servers", "mcpc untrust")
	}
	return &cli.Command{
		Name:        name,
		Usage:       usage,
		Description: desc,
		ArgsUsage:   "[FILE]",
		Metadata:    ex,
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			path, err := trustArgs(g, name, cmd.Args().Slice())
			if err != nil {
				return err
			}
			return runTrust(ctx, st.runIO(g), trustOptions{path: path, trust: trust, structured: g.structured(),
				store: config.TrustStore{Dir: g.dirs.State}, now: st.env.Now()})
		}),
	}
}

type trustOptions struct {
	path       string // absolute (config.TrustPath)
	trust      bool   // false: untrust
	structured bool
	store      config.TrustStore
	now        time.Time
}

// runTrust records (or forgets) the project file's trust, and says so:
// trusting names the servers it lets run.
func runTrust(ctx context.Context, rio runIO, o trustOptions) error {
	c, err := o.store.Change(ctx, o.path, o.trust, o.now)
	if err != nil {
		return err
	}
	if !o.trust && !c.Had {
		textsafe.Note(rio.stderr, "%s was not trusted", o.path)
	}
	if o.structured {
		return rio.print(format.KindGeneric, c)
	}
	if !o.trust {
		return rio.write(fmt.Appendf(nil, "untrusted %s\n", o.path))
	}
	servers := make([]format.TrustedServer, len(c.Servers))
	for i, name := range c.Servers {
		s := c.Parsed.Servers[name]
		servers[i] = format.TrustedServer{Name: name, Transport: client.TransportName(nil, s), URL: s.URL, Command: s.Command, Args: s.Args}
	}
	return rio.write(format.Trusted(o.path, c.SHA256, servers))
}

// trustArgs reads [FILE], the project file name (trust or untrust) is
// about: the one found from the working directory when none is given.
func trustArgs(g *globals, name string, args []string) (string, error) {
	if err := noMoreThan(args, 1, ""); err != nil {
		return "", err
	}
	var file string
	if len(args) == 1 {
		file = args[0]
	}
	return config.TrustPath(file, g.cwd, g.dirs.Home, name)
}
