package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/skills"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/units"
)

type skillOptions struct {
	server string
	name   string
	out    string // --out: the directory to write the skill to; "" prints SKILL.md
	// structured: what was written is printed as JSON (or --query of it).
	structured bool
}

func skillsCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "skills",
		Usage:     "list a server's skills, or fetch one verified",
		ArgsUsage: "SERVER | get SERVER NAME [--out DIR]",
		Description: `Skills are Agent Skills (a SKILL.md and the files beside it) that a server
serves under the io.modelcontextprotocol/skills extension. 'mcpc skills SERVER'
lists them (skills/list, every page): name, number of files, their total size
and description, all from the listing: no file is read. --json prints the
listing as the server sent it.`,
		Metadata: helptext.Examples(
			"the skills a server offers", "mcpc skills docs",
			"print one skill's SKILL.md", "mcpc skills get docs pdf-processing",
			"write all its files under a new directory", "mcpc skills get docs pdf-processing --out skills/pdf-processing",
		),
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			server, err := skillsArgs(g, cmd.Args().Slice())
			if err != nil {
				return err
			}
			return listSkills(ctx, st.runIO(g), server)
		}),
		Commands: []*cli.Command{{
			Name:      "get",
			Usage:     "fetch a skill, verified against the listing",
			ArgsUsage: "SERVER NAME [--out DIR]",
			Description: `NAME is the skill's name, its path (acme/billing/refunds) when two share a
name, or its SKILL.md URI (a skill the listing leaves out is then asked for
with skills/get). SKILL.md is read first and checked against the listing: its
size, its SHA-256 digest and its YAML frontmatter, field by field. Without
--out it is then printed (--json: the verified contents item). With --out,
every other listed file is read after it, each checked the same way before
the next is read, and all are written under DIR, a directory that must not
exist or be empty: into a new directory beside it, renamed to DIR only when
every file is verified, so DIR never holds part of a skill. Paths stay inside
DIR (no absolute path, no '..', no symlink followed). A skill may have at most
` + fmt.Sprint(skills.MaxFiles) + ` files and ` + units.SizeText(skills.MaxBytes) + `, and no colliding paths (one twice, or a file where
another needs a directory, letter case aside), checked from the listing before
anything is read. Any mismatch exits 5 naming the file and what differed;
nothing after it is read and nothing is written. A file is read no further
than its listed size allows; frontmatter over ` + units.SizeText(skills.MaxFrontmatter) + ` or with YAML aliases
is refused (exit 5) before it is parsed. A skill served "dynamically" has nothing to verify
but its frontmatter; its files are found with resources/directory/read, when
the server offers it (directoryRead).`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "out", Aliases: []string{"o"}, TakesFile: true, Usage: "write every file of the skill under `DIR` (new or empty)"},
			},
			Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
				var out *string
				if cmd.IsSet("out") {
					dir := cmd.String("out")
					out = &dir
				}
				o, err := skillGetArgs(g, cmd.Args().Slice(), out)
				if err != nil {
					return err
				}
				return runSkillGet(ctx, st.runIO(g), o)
			}),
		}},
	}
}

// listSkills prints the server's skills listing as it was sent.
func listSkills(ctx context.Context, rio runIO, server string) error {
	sess, closeFn, err := rio.open(ctx, server)
	if err != nil {
		return err
	}
	defer closeFn()
	res, err := sess.ListSkills(ctx)
	if err != nil {
		return err
	}
	return rio.printRaw(format.KindSkillList, res)
}

// skillsArgs reads the SERVER whose skills are listed.
func skillsArgs(g *globals, args []string) (string, error) {
	server, rest, err := g.adhoc.Target(args)
	if err == nil {
		err = noMoreThan(rest, 0, "list with: mcpc skills SERVER; fetch one with: mcpc skills get SERVER NAME")
	}
	return server, err
}

// skillGetArgs reads SERVER NAME and --out (nil: not given), and checks
// the directory before anything connects.
func skillGetArgs(g *globals, args []string, out *string) (skillOptions, error) {
	server, rest, err := g.adhoc.Target(args)
	if err != nil {
		return skillOptions{}, err
	}
	if err := justOne(rest, "list the skills with: mcpc skills SERVER", "skill NAME"); err != nil {
		return skillOptions{}, err
	}
	o := skillOptions{server: server, name: rest[0], structured: g.structured()}
	if out != nil {
		if o.out = *out; o.out == "" {
			return o, usagef("", "--out needs a directory")
		}
		if !filepath.IsAbs(o.out) {
			o.out = filepath.Join(g.cwd, o.out)
		}
		if err := fsx.CheckTreeDir(o.out); err != nil {
			return o, usagef("name a new or empty directory", "--out: %v", err)
		}
	}
	return o, nil
}

// runSkillGet fetches and verifies one skill, then prints its SKILL.md or
// writes all its files under o.out.
func runSkillGet(ctx context.Context, rio runIO, o skillOptions) error {
	sess, closeFn, err := rio.open(ctx, o.server)
	if err != nil {
		return err
	}
	defer closeFn()
	e, files, err := sess.GetSkill(ctx, o.name, o.out != "")
	if err != nil {
		return err
	}
	if e.Dynamic {
		textsafe.Note(rio.stderr, "skill %q is served dynamically: only its frontmatter could be checked, against the listing", textsafe.OneLine(e.Name))
	}
	if o.out == "" {
		// Only the verified item: whatever else the answer held was not.
		doc, _ := json.Marshal(map[string]any{"contents": []json.RawMessage{files[0].Content}})
		return rio.printRaw(format.KindReadResource, doc)
	}
	out, err := skills.Write(o.out, e, files)
	if err != nil {
		return err
	}
	if o.structured {
		return rio.print(format.KindGeneric, out)
	}
	return rio.write(fmt.Appendf(nil, "wrote %d files of skill %s to %s\n", len(files), textsafe.OneLine(e.Name), o.out))
}
