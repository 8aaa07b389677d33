package commands

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

func grepCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "grep",
		Usage:     "search the tools, prompts and resources of several servers",
		ArgsUsage: "PATTERN [SERVER...]",
		Description: `Searches the names, titles and descriptions of the tools, prompts and
resources of the named servers, or of every configured one (never an
untrusted or disabled one), with PATTERN, a case-insensitive regular
expression (Go's RE2 syntax); --name searches names (and resource URIs)
only. Servers are reached at most --parallel at once, each bounded by its
connect timeout; lists a server marked fresh (ttlMs) come from the cache.
Prints one match per line: server, kind, name (a resource's URI) and
description, cut to the terminal's width; JSON Lines when piped. A server
that cannot be reached is a note on stderr. The exit status is 0 with a
match, 1 without, 5 when no server could be searched.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "name", Usage: "match names (and resource URIs) only"},
			parallelFlag(),
		},
		Metadata: helptext.Examples(
			"which server has a tool about issues?", "mcpc grep issue",
			"tools, prompts and resources named like echo, on two servers", "mcpc grep --name '^echo' everything local",
		),
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			pattern, servers, err := grepArgs(cmd.Args().Slice(), cmd.Bool("name"))
			if err != nil {
				return err
			}
			parallel, err := readParallel(cmd)
			if err != nil {
				return err
			}
			targets, err := st.connector(g).Targets(servers, g.memo())
			if err != nil {
				return err
			}
			o := grepOptions{pattern: pattern, targets: targets, parallel: parallel,
				structured: g.structured(), maxLines: g.maxLines, width: st.env.Width}
			return runGrep(ctx, st.runIO(manyGlobals(g)), o)
		}),
	}
}

// grepArgs reads PATTERN [SERVER...]: the pattern compiled (namesOnly:
// --name), and the servers named.
func grepArgs(args []string, namesOnly bool) (client.Pattern, []string, error) {
	if len(args) == 0 {
		return client.Pattern{}, nil, usagef("mcpc grep PATTERN [SERVER...]", "missing PATTERN")
	}
	pattern, err := client.CompilePattern(args[0], namesOnly)
	return pattern, args[1:], err
}

type grepOptions struct {
	pattern  client.Pattern
	targets  []client.Target // the servers named, or all
	parallel int
	// structured: JSON Lines (each through --query and --max-bytes), not
	// text lines cut to width (0: never cut); at most maxLines of them.
	structured      bool
	maxLines, width int
}

// runGrep searches every target, at most o.parallel at once, and prints
// the matches in the targets' order.
func runGrep(ctx context.Context, rio runIO, o grepOptions) error {
	s := client.NewSearch(o.targets, o.pattern, errInterrupted)
	rio.each(ctx, o.targets, o.parallel, func(ctx context.Context, i int, _ time.Time, sess connection, err error) {
		var caps *mcp.ServerCapabilities
		if err == nil {
			caps = sess.initializeResult().Capabilities
		}
		s.Visit(ctx, i, sess, caps, err)
	})
	all, verdict := s.Done(rio.stderr)
	if errors.Is(context.Cause(ctx), errInterrupted) {
		return errInterrupted
	}
	if err := printMatches(rio, o, all); err != nil {
		return err
	}
	return verdict
}

// printMatches writes the matches, at most --max-lines of them: aligned
// text lines cut to the terminal's width, or JSON Lines (each through
// --query and --max-bytes, as --batch prints its results).
func printMatches(rio runIO, o grepOptions, ms []client.Match) error {
	shown := ms[:min(len(ms), o.maxLines)]
	var b strings.Builder
	if o.structured {
		for _, m := range shown {
			doc, _ := json.Marshal(m)
			line, err := rio.line(doc)
			if err != nil {
				return format.QueryUsage(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
	} else {
		b.WriteString(format.MatchLines(client.MatchRows(shown), o.width))
	}
	if err := rio.write([]byte(b.String())); err != nil {
		return err
	}
	if n := len(ms) - len(shown); n > 0 {
		textsafe.Note(rio.stderr, "%d more matches not shown (--max-lines %d)", n, o.maxLines)
	}
	return nil
}
