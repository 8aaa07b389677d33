package commands

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/blockbuf"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/schemadiff"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// errDrift ends a diff that found a breaking change (or, with --strict,
// any change): exit 1, the changes already printed.
var errDrift = &fail.Error{Code: fail.Drift, Msg: "the server's tools changed"}

// diffSide is one side of a comparison: a snapshot file or a server.
type diffSide struct {
	file   string // as given, relative to the working directory
	server string // a server argument ("" for --stdio or --)
}

type diffOptions struct {
	old, new diffSide // old is always a file (diffArgs)
	cwd      string   // where a snapshot file's relative name starts
	// strict: any change fails the diff (exit 1), not only a breaking one.
	strict bool
	// structured: the changes are printed as JSON (or --query of it);
	// whole: --query reads all of it, or no bound cuts it.
	structured, whole bool
}

const diffArgsUsage = "SERVER SNAPSHOT | OLD NEW | SNAPSHOT (with --stdio or --)"

func diffCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "compare a server with a snapshot, or two snapshots, and classify each change as breaking or compatible",
		ArgsUsage: diffArgsUsage,
		Description: `The snapshot (from mcpc snapshot) is the old side, the server as it is now
the new one; with two files, OLD is compared with NEW. An argument is a
snapshot file when it contains a "/", or when a file of that name exists in
the working directory; otherwise it is a server (a configured name or an
https:// URL). A bare name that is both a file and a configured server is
refused: write ./NAME for the file. With --stdio or after --, the one
argument is the snapshot.

Breaking: a tool, prompt or template removed; a required argument added or
an argument made required; a property removed; a type changed or narrowed;
an enum value removed; additionalProperties closed; an output property
removed or made optional; a bound tightened (maximum, minLength, ...) or
another limit added or changed (pattern, format, ...); a tool that now
requires a task, or no longer allows one. Compatible: a tool, optional
argument, enum value or output property added; an argument made optional;
a bound loosened or a limit removed; titles, descriptions, annotations,
default, examples and x- keywords changed. In an output schema the server
produces the value, so a type widened or an enum value added is breaking
and a narrowing is not. Schemas are compared as JSON Schema (2020-12 and
draft-07): types as sets, nested properties and array items by path
(arguments.filter.tags[]), local $refs followed, cycles walked once. A
schema whose comparison would take more steps than mcpc allows (anyOf
branches that multiply) or that nests more than 1000 levels is not compared
in detail: a note says so, and if it differs that is a breaking change
(not-compared).

Text: one line per change (breaking: tool search: argument "q" is now
required). JSON: a list of {kind, object, path, change, old, new}. Exit 0
when nothing breaks, 1 when something does; with --strict any change is
exit 1. A file that is not a snapshot is exit 2.`,
		Metadata: helptext.Examples(
			"check a server against the snapshot kept in the repository", "mcpc diff github github.snapshot.json",
			"fail on any change at all", "mcpc diff --strict github github.snapshot.json",
			"compare two snapshots", "mcpc diff old.snapshot.json new.snapshot.json",
			"a stdio server", "mcpc diff --stdio './server --next' server.snapshot.json",
		),
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			o, err := diffArgs(g, cmd.Args().Slice())
			if err != nil {
				return err
			}
			o.cwd, o.strict, o.structured, o.whole = g.cwd, g.strict, g.structured(),
				g.query != "" || g.maxBytes == math.MaxInt && g.maxLines == math.MaxInt
			return runDiff(ctx, st.runIO(g), o)
		}),
	}
}

// diffArgs decides which argument is a file and which a server
// (config.SnapshotFiles), before anything is read or started.
func diffArgs(g *globals, args []string) (diffOptions, error) {
	var o diffOptions
	if g.adhoc.IsStdio() {
		if len(args) != 1 {
			return o, usagef("with --stdio or --, give one snapshot file: mcpc diff --stdio 'command' SNAPSHOT", "mcpc diff needs one SNAPSHOT argument with a server on the command line, not %d", len(args))
		}
		if _, err := os.Stat(fsx.Under(g.cwd, args[0])); err != nil {
			return o, usagef("write one with: mcpc snapshot SERVER > FILE", "snapshot file %s does not exist", args[0])
		}
		return diffOptions{old: diffSide{file: args[0]}, new: diffSide{}}, nil
	}
	if len(args) != 2 {
		return o, usagef("usage: mcpc diff "+diffArgsUsage, "mcpc diff needs two arguments, not %d", len(args))
	}
	files, err := config.SnapshotFiles(args, g.cwd, g.loadConfig)
	if err != nil {
		return o, err
	}
	side := func(i int) diffSide {
		if files[i] {
			return diffSide{file: args[i]}
		}
		return diffSide{server: args[i]}
	}
	switch {
	case files[0]:
		return diffOptions{old: side(0), new: side(1)}, nil
	case files[1]:
		return diffOptions{old: side(1), new: side(0)}, nil
	}
	return o, usagef("write one with: mcpc snapshot SERVER > FILE", "mcpc diff compares a server with a snapshot file, not two servers")
}

// runDiff reads the snapshot files, then snapshots the server side, and
// prints what changed; a breaking change (with strict, any) is errDrift.
func runDiff(ctx context.Context, rio runIO, o diffOptions) error {
	// Files first: a bad one is reported before a server is started.
	before, err := schemadiff.ReadFile(fsx.Under(o.cwd, o.old.file), o.old.file)
	if err != nil {
		return err
	}
	var after *schemadiff.Snapshot
	if o.new.file != "" {
		after, err = schemadiff.ReadFile(fsx.Under(o.cwd, o.new.file), o.new.file)
	} else {
		after, err = takeSnapshot(ctx, rio, o.new.server)
	}
	if err != nil {
		return err
	}
	out := newChangeList(rio, o.structured, o.whole)
	sum, err := schemadiff.DiffEach(ctx, before, after, out.add)
	if err != nil {
		return err // the invocation ended (--timeout, Ctrl-C), or stdout did
	}
	if err := out.print(); err != nil {
		return err
	}
	if sum.Fails(o.strict) {
		return errDrift
	}
	return nil
}

// changeList prints a comparison's changes as they are found: as lines,
// written as they come; as JSON, gathered encoded (a few hundred
// thousand would take many times their size as values, and then again
// encoded), each note said as its change is found.
type changeList struct {
	rio        runIO
	structured bool
	// whole: a --query reads the whole list, or it is printed whole
	// (--max-bytes 0 --max-lines 0). Else a list past what an
	// overflow file keeps is shown only as far as --max-bytes prints it,
	// so past that cap it is counted, not gathered.
	whole   bool
	text    *bufio.Writer
	json    blockbuf.Buf
	enc     *json.Encoder // to json
	n, left int           // changes found; those past the cap, not gathered
	cut     bool          // past the cap: changes are counted
}

// printedMore is what printing adds to a change's compact JSON at the
// least: its indent and the line ends of its six keys and braces.
const printedMore = 40

func newChangeList(rio runIO, structured, whole bool) *changeList {
	l := &changeList{rio: rio, structured: structured, whole: whole}
	l.enc = json.NewEncoder(&l.json)
	l.enc.SetEscapeHTML(false)
	if !structured {
		l.text = bufio.NewWriterSize(writeFn(rio.write), 64<<10)
	}
	return l
}

func (l *changeList) add(changes []schemadiff.Change) error {
	for _, c := range changes {
		if note := c.Note(); note != "" {
			textsafe.Note(l.rio.stderr, "%s", note)
		}
		l.n++
		switch {
		case !l.structured:
			if _, err := l.text.WriteString(schemadiff.Line(c)); err != nil {
				return err // stdout's reader went away: the comparison ends
			}
		case l.cut:
			l.left++
		default:
			l.json.WriteByte(',')
			// No HTML escaping, as the printer's: "<" stays "<".
			if err := l.enc.Encode(c); err != nil {
				return err
			}
			// Printed, each change takes at least printedMore bytes more
			// than here: once that is past the cap, no overflow file can
			// hold the list, and what --max-bytes shows of it is here.
			l.cut = !l.whole && l.json.Len()+printedMore*(l.n-l.left) > format.DefaultOverflowCap
		}
	}
	return nil
}

// print ends the list: the JSON list (or --query of it) printed, the
// lines flushed, or the note that there were none.
func (l *changeList) print() error {
	if !l.structured {
		if l.n == 0 {
			textsafe.Note(l.rio.stderr, "no changes")
			return nil
		}
		return l.text.Flush()
	}
	if l.left > 0 {
		textsafe.Note(l.rio.stderr, "%d of %d changes are in the list: past the %s an overflow file keeps, the rest were counted, not kept; --text prints every change, --query selects some",
			l.n-l.left, l.n, units.SizeText(format.DefaultOverflowCap))
	}
	doc := l.json.Bytes()
	if len(doc) == 0 {
		return l.rio.printRaw(format.KindGeneric, []byte("[]"))
	}
	doc[0] = '[' // the first member's comma
	return l.rio.printRaw(format.KindGeneric, append(doc, ']'))
}

// writeFn is runIO.write as an io.Writer.
type writeFn func([]byte) error

func (f writeFn) Write(p []byte) (int, error) {
	if err := f(p); err != nil {
		return 0, err
	}
	return len(p), nil
}
