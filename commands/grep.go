package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/internal/fail"
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
		Metadata: examples(
			"which server has a tool about issues?", "mcpc grep issue",
			"tools, prompts and resources named like echo, on two servers", "mcpc grep --name '^echo' everything local",
		),
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			args := cmd.Args().Slice()
			if len(args) == 0 {
				return usagef("mcpc grep PATTERN [SERVER...]", "missing PATTERN")
			}
			re, err := regexp.Compile("(?i)" + args[0])
			if err != nil {
				why := err.Error()
				if se := (*syntax.Error)(nil); errors.As(err, &se) {
					why = fmt.Sprintf("%s: %q", se.Code, strings.TrimPrefix(se.Expr, "(?i)"))
				}
				return usagef("PATTERN is a regular expression in Go's RE2 syntax: https://github.com/google/re2/wiki/Syntax",
					"invalid PATTERN %q: %s", args[0], why)
			}
			parallel, err := readParallel(cmd)
			if err != nil {
				return err
			}
			targets, err := st.manyTargets(g, args[1:])
			if err != nil {
				return err
			}
			o := grepOptions{re: re, names: cmd.Bool("name"), targets: targets, parallel: parallel,
				structured: g.structured(), maxLines: g.maxLines, width: st.env.Width}
			return runGrep(ctx, st.runIO(manyGlobals(g)), o)
		}),
	}
}

type grepOptions struct {
	re       *regexp.Regexp
	names    bool         // match names only
	targets  []manyTarget // the servers named, or all (manyTargets)
	parallel int
	// structured: JSON Lines (each through --query and --max-bytes), not
	// text lines cut to width (0: never cut); at most maxLines of them.
	structured      bool
	maxLines, width int
}

// grepMatch is one line of mcpc grep.
type grepMatch = client.Match

// errNoMatch is grep's exit 1: nothing is printed.
var errNoMatch = &fail.Error{Code: fail.ToolError, Msg: "no match"}

// runGrep searches every target, at most o.parallel at once, and prints
// the matches in the targets' order.
func runGrep(ctx context.Context, rio runIO, o grepOptions) error {
	targets := o.targets
	found := make([][]grepMatch, len(targets))
	// Each server's notes and failure are kept by its index and told in
	// the targets' order once all are done, so that two runs against the
	// same servers say the same thing, whichever answered first.
	notes := make([][]string, len(targets))
	failed := make([]*fail.Error, len(targets))
	for i, t := range targets {
		if t.Named && t.Err != nil {
			notes[i] = append(notes[i], fmt.Sprintf("%s not searched: %s", textsafe.OneLine(t.Name), textsafe.OneLine(asFailure(t.Err).Msg)))
		}
	}
	rio.each(ctx, targets, o.parallel, func(ctx context.Context, i int, _ time.Time, sess session, err error) {
		name := targets[i].Name
		if err != nil {
			failed[i] = asFailure(ctxErr(ctx, err))
			notes[i] = append(notes[i], fmt.Sprintf("%s not searched: %s", textsafe.OneLine(name), textsafe.OneLine(failed[i].Msg)))
			return
		}
		ms, errs := client.Search(ctx, sess, sess.initializeResult().Capabilities, name, o.match)
		for _, err := range errs {
			notes[i] = append(notes[i], fmt.Sprintf("%s: %s", textsafe.OneLine(name), textsafe.OneLine(asFailure(ctxErr(ctx, err)).Msg)))
		}
		found[i] = ms
	})
	searched := 0
	var worst *fail.Error // the most severe failure, the first of its rank
	for i, t := range targets {
		for _, n := range notes[i] {
			textsafe.Note(rio.stderr, "%s", n)
		}
		switch e := failed[i]; {
		case e != nil && (worst == nil || client.Severity(e.Code) < client.Severity(worst.Code)):
			worst = e
		case e == nil && t.Entry != nil:
			searched++
		}
	}
	if errors.Is(context.Cause(ctx), errInterrupted) {
		return errInterrupted
	}
	var all []grepMatch
	for _, ms := range found {
		all = append(all, ms...)
	}
	if err := printMatches(rio, o, all); err != nil {
		return err
	}
	switch {
	case len(targets) == 0:
		return fail.New(fail.Config, "add one with: mcpc config add NAME …, or name a server (or URL) after PATTERN", "no servers to search")
	case searched == 0 && worst != nil:
		return &fail.Error{Code: fail.Connection, Err: worst, Hint: worst.Hint,
			Msg: fmt.Sprintf("no server could be searched (%d tried)", len(targets))}
	case searched == 0:
		return fail.New(fail.Config, "name a server that can be started", "no server could be searched: none of those named can be started")
	case len(all) == 0:
		return errNoMatch
	}
	return nil
}

// match reports whether the pattern finds m: its name (a resource's URI
// too), and unless --name its title and description.
func (o grepOptions) match(m grepMatch) bool {
	fields := []string{m.Name, m.URI}
	if !o.names {
		fields = append(fields, m.Title, m.Description)
	}
	for _, f := range fields {
		if f != "" && o.re.MatchString(f) {
			return true
		}
	}
	return false
}

// printMatches writes the matches, at most --max-lines of them: aligned
// text lines cut to the terminal's width, or JSON Lines (each through
// --query and --max-bytes, as --batch prints its results).
func printMatches(rio runIO, o grepOptions, ms []grepMatch) error {
	shown := ms
	if len(shown) > o.maxLines {
		shown = shown[:o.maxLines]
	}
	var b strings.Builder
	if o.structured {
		for _, m := range shown {
			doc, _ := json.Marshal(m)
			line, err := rio.line(doc)
			if err != nil {
				return outputError(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
	} else {
		b.WriteString(matchLines(shown, o.width))
	}
	if err := rio.write([]byte(b.String())); err != nil {
		return err
	}
	if n := len(ms) - len(shown); n > 0 {
		textsafe.Note(rio.stderr, "%d more matches not shown (--max-lines %d)", n, o.maxLines)
	}
	return nil
}

// matchLines lays the matches out in columns (server, kind, name,
// description), each line cut to width (0: never cut).
func matchLines(ms []grepMatch, width int) string {
	rows := make([][4]string, len(ms))
	var w [3]int
	for i, m := range ms {
		name := m.Name
		if m.URI != "" {
			name = m.URI
		}
		desc := m.Description
		if desc == "" {
			desc = m.Title
		}
		desc, _, _ = strings.Cut(strings.TrimSpace(textsafe.StripControl(desc)), "\n")
		rows[i] = [4]string{textsafe.OneLine(m.Server), m.Kind, textsafe.OneLine(name), textsafe.OneLine(desc)}
		for c := range w {
			w[c] = max(w[c], textsafe.Width(rows[i][c]))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		var line strings.Builder
		for c := range w {
			line.WriteString(r[c])
			line.WriteString(strings.Repeat(" ", w[c]-textsafe.Width(r[c])+2))
		}
		line.WriteString(r[3])
		s := strings.TrimRight(line.String(), " ")
		if width > 0 {
			s = textsafe.Clip(s, width)
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	return b.String()
}
