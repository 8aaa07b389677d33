package commands

import (
	"context"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/format"
)

func listCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "list",
		Aliases:   []string{"ls"},
		Usage:     "list configured servers, or a server's tools, resources, templates or prompts",
		ArgsUsage: "[SERVER [tools|resources|templates|prompts]]",
		Description: `Without SERVER: the configured servers with their transport, source file and
trust. With SERVER: its tools (or the named kind); every page is fetched.
--json prints the complete result, schemas included.`,
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			args := cmd.Args().Slice()
			if len(args) == 0 && !g.adhoc.IsStdio() {
				return st.listServers(g)
			}
			server, rest, err := target(g, args)
			if err != nil {
				return err
			}
			what := "tools"
			if len(rest) > 0 {
				what = rest[0]
			}
			if len(rest) > 1 {
				return usagef("", "unexpected argument %q", rest[1])
			}
			switch what {
			case "tools", "resources", "templates", "prompts":
			default:
				return usagef("choose one of tools, resources, templates, prompts", "cannot list %q", what)
			}
			return st.listServer(ctx, g, server, what)
		}),
	}
}

func (st *state) listServer(ctx context.Context, g *globals, server, what string) error {
	sess, closeFn, err := st.open(ctx, g, server)
	if err != nil {
		return err
	}
	defer closeFn()
	raw, err := sess.ListRaw(ctx, what)
	if err != nil {
		return err
	}
	kinds := map[string]format.Kind{
		"tools": format.KindToolList, "resources": format.KindResourceList,
		"templates": format.KindTemplateList, "prompts": format.KindPromptList,
	}
	return st.printRaw(g, kinds[what], raw)
}

type serverRow struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Source    string `json:"source"`
	Trusted   bool   `json:"trusted"`
	// Active is false when a higher-precedence source defines the same
	// name, or when the project file is not trusted.
	Active bool `json:"active"`
}

// listServers prints every configured server, including those of an
// untrusted project file (never started, but the user should see them).
func (st *state) listServers(g *globals) error {
	cfg, err := g.loadConfig()
	if err != nil {
		return err
	}
	rows := []serverRow{}
	seen := map[string]bool{}
	for i := len(cfg.Files) - 1; i >= 0; i-- {
		f := cfg.Files[i]
		for _, name := range f.Names {
			rows = append(rows, serverRow{Name: name, Transport: f.Servers[name].Transport(), Source: f.Path, Trusted: true, Active: !seen[name]})
			seen[name] = true
		}
	}
	if p := cfg.Project; p != nil && cfg.ProjectTrust != client.Trusted && p.Err == nil {
		for _, name := range p.Names {
			rows = append(rows, serverRow{Name: name, Transport: p.Servers[name].Transport(), Source: p.Path, Trusted: false})
		}
	}
	sortRows(rows)
	return st.print(g, format.KindServerList, map[string]any{"servers": rows})
}

// sortRows orders rows by name, keeping precedence order within a name.
func sortRows(rows []serverRow) {
	slices.SortStableFunc(rows, func(a, b serverRow) int { return strings.Compare(a.Name, b.Name) })
}
