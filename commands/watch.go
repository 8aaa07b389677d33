package commands

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	clientstate "github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/cliflags"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

func watchCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "watch",
		Usage:     "follow what a server pushes, as JSON Lines",
		ArgsUsage: "SERVER [logs|lists|progress|resources URI…|events [TYPE…]]…",
		Description: `Writes a JSON line on stdout for each thing the server pushes, flushed as it
comes: log messages at --log-level (logs), the tools, prompts and resources
lists' changes with the names added and removed (lists), progress (progress),
and the updates of the resources named after 'resources' (subscribed to;
--read adds their contents as re-read), and the events of the types named
after 'events' (all that can be followed when none is named) of a server
of the events extension, pushed where the server offers it, else polled;
--since-last goes on where the last such watch left off, --drain ends once
there are no more. Without WHAT: logs and lists. The
first line ("kind":"ready") says the watch is in place. Every line has a
seq; a gap in it is notifications lost to a reader slower than the server.
Through the server's session when one runs, so the watch sees what other
invocations' calls change. Stops at Ctrl-C (exit 130), after --count lines,
at the first line --until selects something other than null or false (exit
0), at --timeout (exit 6), or when the server goes away (exit 5, with why).
See 'mcpc help watch'.`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "count", Usage: "stop after `N` lines of what the server pushed (0: no limit)"},
			&cli.StringFlag{Name: "until", Usage: "stop after the first line for which `QUERY` (--query syntax) selects something other than null or false"},
			&cli.BoolFlag{Name: "read", Usage: "re-read an updated resource and put its contents in the line"},
			&cli.BoolFlag{Name: "since-last", Usage: "events: start each event type where the last --since-last watch of the server left off, and keep where this one gets to"},
			&cli.BoolFlag{Name: "drain", Usage: "events: end (exit 0) once the server has no more events of any type watched"},
			&cli.StringFlag{Name: "delivery", Usage: "events: follow them by `MODE`: poll, push, or auto (push where the server offers it, directly; poll through a session or with --drain)", Value: "auto"},
			&cli.DurationFlag{Name: "min-poll", Value: client.DefaultMinPoll, Usage: "events: poll no more often than every `DURATION`, whatever the server asks"},
		},
		Metadata: helptext.Examples(
			"follow a server's tool list as it changes", "mcpc watch everything lists",
			"wait for one update of a resource, with its contents", "mcpc watch everything resources demo://resource/dynamic/text/1 --read --count 1",
			"follow debug logs until an error", "mcpc watch --log-level debug everything logs --until 'level==\"error\"'",
		),
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			o, err := watchArgs(g, cmd)
			if err != nil {
				return err
			}
			return st.runWatch(ctx, g, o)
		}),
	}
}

// watchArgs reads SERVER [WHAT…] and the watch's flags.
func watchArgs(g *globals, cmd *cli.Command) (watchOptions, error) {
	f := cliflags.Of(cmd)
	wo := watchOptions{WatchOptions: client.WatchOptions{Count: f.Int("count"), Read: f.Bool("read"),
		SinceLast: f.Bool("since-last"), Drain: f.Bool("drain"), MinPoll: f.Duration("min-poll")}}
	o := &wo.WatchOptions
	server, rest, err := g.adhoc.Target(cmd.Args().Slice())
	if err != nil {
		return wo, err
	}
	wo.server = server
	if o.Count < 0 {
		return wo, fail.New(fail.Usage, "", "--count must be 0 or more, not %d", o.Count)
	}
	if q := f.String("until"); q != "" {
		if err := format.CheckQuery(q); err != nil {
			var qe *format.QueryError
			errors.As(err, &qe)
			return wo, fail.New(fail.Usage, "--until takes a --query path; see 'mcpc help output'", "invalid --until %q: %s", q, qe.Reason)
		}
		o.Until = func(line []byte) (bool, error) { return format.Holds(line, q) }
	}
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		if !slices.Contains(client.WatchKinds, w) {
			return wo, fail.New(fail.Usage, "what a watch follows: "+strings.Join(client.WatchKinds, ", "),
				"mcpc watch cannot follow %q", w)
		}
		if !slices.Contains(o.What, w) {
			o.What = append(o.What, w)
		}
		for w == "resources" && i+1 < len(rest) && !slices.Contains(client.WatchKinds, rest[i+1]) {
			i++
			o.Resources = append(o.Resources, rest[i])
		}
		for w == "events" && i+1 < len(rest) && !slices.Contains(client.WatchKinds, rest[i+1]) {
			i++
			o.Events = append(o.Events, rest[i])
		}
	}
	if (o.SinceLast || o.Drain) && !slices.Contains(o.What, "events") {
		return wo, fail.New(fail.Usage, "mcpc watch SERVER events [TYPE…] --since-last", "--since-last and --drain are for a watch of events")
	}
	if err := watchDelivery(f.String("delivery"), o); err != nil {
		return wo, err
	}
	if o.MinPoll < client.DefaultMinPoll/10 {
		return wo, fail.New(fail.Usage, "", "--min-poll must be %s or more, not %s", client.DefaultMinPoll/10, o.MinPoll)
	}
	if slices.Contains(o.What, "resources") && len(o.Resources) == 0 {
		return wo, fail.New(fail.Usage, "mcpc watch SERVER resources URI…", "give the URIs of the resources to watch")
	}
	if len(o.What) == 0 {
		o.What = []string{"logs", "lists"}
	}
	return wo, nil
}

// watchDelivery reads --delivery into o.
func watchDelivery(mode string, o *client.WatchOptions) error {
	switch mode {
	case "auto":
		return nil
	case "poll", "push":
	default:
		return fail.New(fail.Usage, "--delivery is poll, push or auto", "mcpc watch cannot follow events by %q", mode)
	}
	if !slices.Contains(o.What, "events") {
		return fail.New(fail.Usage, "mcpc watch SERVER events [TYPE…] --delivery "+mode, "--delivery is for a watch of events")
	}
	if mode == "push" && o.Drain {
		return fail.New(fail.Usage, "--drain polls: only a poll tells that no more events wait", "--drain and --delivery push cannot go together")
	}
	o.Delivery = mode
	return nil
}

// watchOptions are a watch's: the server and client.WatchOptions.
type watchOptions struct {
	server string
	client.WatchOptions
}

// runWatch connects with the watch's hooks and runs it.
func (st *state) runWatch(ctx context.Context, g *globals, wo watchOptions) error {
	o := wo.WatchOptions
	rio := st.runIO(g)
	var w *client.Watch
	// Lines are buffered while more wait, and flushed when none does
	// (WatchOptions.Flush): a flood's lines in 64 KiB writes.
	out := bufio.NewWriterSize(writeAll(rio.write), 64<<10)
	o.Write = func(doc []byte) error {
		line, err := rio.line(doc)
		if err != nil {
			return err
		}
		if _, err := out.Write(append(line, '\n')); err != nil {
			return err
		}
		return nil
	}
	o.Flush = out.Flush
	o.Now = st.env.Now
	w = client.NewWatch(o)
	c := st.connector(g)
	base := c.Options
	c.Options = func(e *config.Entry) conn.ConnectOptions {
		opts := base(e)
		if opts.Input != nil {
			in := *opts.Input
			in.Log = w.Log
			opts.Input = &in
		}
		opts.Progress = w.Progress
		opts.Pushed = w.Pushed
		opts.Lost = w.Lost
		opts.Resumed = func(last string) { noteResumed(rio.stderr, e.ShownName(), last) }
		return opts
	}
	e, err := c.Resolve(wo.server)
	if err != nil {
		return err
	}
	w.SetCursors(eventCursors{clientstate.NewCursors(g.dirs.State), serverKey(e)})
	w.SetNote(func(s string) { textsafe.Note(rio.stderr, "%s", s) })
	sess, closeFn, err := c.OpenEntry(ctx, e)
	if err != nil {
		return err
	}
	defer closeFn()
	src, ok := sess.(client.WatchSource)
	if !ok {
		return fmt.Errorf("%s cannot be watched", sess.label())
	}
	err = w.Run(ctx, e.ShownName(), src)
	if n := w.Dropped(); n > 0 {
		textsafe.Note(rio.stderr, "%d of the server's notifications were dropped (the gaps in seq): stdout was read more slowly than the server sent them", n)
	}
	return err
}

// noteResumed says on stderr that the server's event stream dropped and
// was reconnected: from where, or that what it sent in between is lost
// (a server that numbers no events cannot be resumed).
func noteResumed(stderr io.Writer, server, last string) {
	if last == "" {
		textsafe.Note(stderr, "the event stream of server %q dropped and was reconnected; its events have no IDs, so what it sent in between is lost", server)
		return
	}
	textsafe.Note(stderr, "the event stream of server %q dropped and was reconnected, resuming after event %q", server, last)
}

// writeAll is an io.Writer of a function that writes all of b or fails.
type writeAll func(b []byte) error

func (f writeAll) Write(b []byte) (int, error) {
	if err := f(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// eventCursors are the cursors of one server (client.EventCursors).
type eventCursors struct {
	c      *clientstate.Cursors
	server string
}

func (e eventCursors) Load(event string) (string, bool) { return e.c.Load(e.server, event) }
func (e eventCursors) Save(event, cursor string) error {
	return e.c.Save(e.server, event, cursor, time.Now())
}

// serverKey names a server for the cursors kept: its name and where it
// is, so a name given to another server starts afresh.
func serverKey(e *config.Entry) string {
	where := e.Server.URL
	if where == "" {
		where = shellwords.Join(append([]string{e.Server.Command}, e.Server.Args...))
	}
	return e.Name + "\x00" + where
}
