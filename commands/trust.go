package commands

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

type trustResult struct {
	File    string   `json:"file"`
	SHA256  string   `json:"sha256"`
	Trusted bool     `json:"trusted"`
	Servers []string `json:"servers"`
}

func trustCommand(st *state, trust bool) *cli.Command {
	name, usage := "trust", "trust a project .mcp.json so its servers may run"
	desc := `Records the file's absolute path and SHA-256. Review the file first: a
project file names commands mcpc will execute and URLs it will contact. Any
change to the file makes it untrusted again. FILE defaults to the .mcp.json
found from the working directory upwards.`
	ex := examples(
		"review the project's servers, then trust them", "cat .mcp.json && mcpc trust",
		"a file elsewhere", "mcpc trust ../other/.mcp.json",
	)
	if !trust {
		name, usage, desc = "untrust", "forget that a project .mcp.json was trusted", `Removes the record 'mcpc trust' made: the file's servers are ignored again.
FILE defaults to the .mcp.json found from the working directory upwards.`
		ex = examples("stop using this project's servers", "mcpc untrust")
	}
	return &cli.Command{
		Name:        name,
		Usage:       usage,
		Description: desc,
		ArgsUsage:   "[FILE]",
		Metadata:    ex,
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			if cmd.Args().Len() > 1 {
				return usagef("", "unexpected argument %q", cmd.Args().Get(1))
			}
			path := cmd.Args().First()
			if path == "" {
				path = config.FindProjectFile(g.cwd, g.dirs.Home)
				if path == "" {
					return &fail.Error{Code: fail.Config, Msg: "no .mcp.json found in " + g.cwd + " or above", Hint: "name the file: mcpc " + name + " FILE"}
				}
			}
			if !filepath.IsAbs(path) {
				path = filepath.Join(g.cwd, path)
			}
			// Trusted by the path the user named (a symlink stays a
			// symlink): that is the path the project search finds.
			path = filepath.Clean(path)
			return st.runTrust(ctx, g, trustOptions{path: path, trust: trust})
		}),
	}
}

type trustOptions struct {
	path  string // absolute, symlinks resolved
	trust bool   // false: untrust
}

func (st *state) runTrust(ctx context.Context, g *globals, o trustOptions) error {
	path, trust := o.path, o.trust
	store := config.TrustStore{Dir: g.dirs.State}
	res := trustResult{File: path, Servers: []string{}}
	var f *config.File
	if trust {
		data, err := readFile(path)
		if err != nil {
			return err
		}
		f = config.ParseFile(path, config.SourceProject, data)
		if f.Err != nil {
			return &fail.Error{Code: fail.Config, Msg: f.Err.Error(), Hint: "fix the file before trusting it", Err: f.Err}
		}
		res.SHA256, res.Trusted, res.Servers = f.Hash, true, f.Names
		if _, err := store.Set(ctx, path, f.Hash, st.env.Now()); err != nil {
			return err
		}
	} else {
		had, err := store.Set(ctx, path, "", st.env.Now())
		if err != nil {
			return err
		}
		if !had {
			textsafe.Note(st.env.Stderr, "%s was not trusted", path)
		}
	}
	if g.mode == format.ModeJSON || g.query != "" {
		return st.runIO(g).print(format.KindGeneric, res)
	}
	if !trust {
		fmt.Fprintf(st.env.Stdout, "untrusted %s\n", path)
		return nil
	}
	fmt.Fprintf(st.env.Stdout, "trusted %s (sha256 %s)\n", path, res.SHA256[:12])
	for _, name := range f.Names {
		s := f.Servers[name]
		what := s.URL
		if s.URL == "" {
			what = strings.Join(append([]string{s.Command}, s.Args...), " ")
		}
		fmt.Fprintf(st.env.Stdout, "  %s (%s): %s\n", name, client.TransportName(nil, s), textsafe.StripControl(what))
	}
	return nil
}
