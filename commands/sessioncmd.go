package commands

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	clientstate "github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// defaultSessionIdle is how long a session waits without a request.
const defaultSessionIdle = 15 * time.Minute

func sessionCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:  "session",
		Usage: "hold a server across invocations: start, list, stop",
		Description: `A session keeps one server running between invocations, so that state it
holds (a counter, a browser, a login) survives from one command to the next,
and a server that is slow to start starts once. Every command that names the
server uses the live session (--no-session bypasses it). See 'mcpc help
sessions'.`,
		Commands: []*cli.Command{
			sessionStartCommand(st),
			{
				Name:  "list",
				Usage: "list the sessions",
				Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
					if cmd.Args().Len() > 0 {
						return usagef("", "unexpected argument %q", cmd.Args().First())
					}
					return st.runSessionList(ctx, g)
				}),
			},
			sessionStopCommand(st),
			sessionLogsCommand(st),
		},
	}
}

// sessionStartCommand is `mcpc session start`; the holder runs the same
// command line (st.holder set) and then holds the session.
func sessionStartCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "start",
		Usage:     "start a session holding SERVER",
		ArgsUsage: "SERVER | --name NAME --stdio 'command args'",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "the session's `NAME` (needed for a --stdio server)"},
			&cli.DurationFlag{Name: "idle", Value: defaultSessionIdle, DefaultText: durationText(defaultSessionIdle), Usage: "end the session after `DURATION` without a request (0: until stopped)"},
			&cli.BoolFlag{Name: "shell", Usage: "end the session when the shell that ran this command exits"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			g, err := st.readGlobals(cmd)
			if err != nil {
				return err
			}
			o := sessionStart{name: cmd.String("name"), idle: cmd.Duration("idle"), shell: cmd.Bool("shell")}
			if o.idle < 0 {
				return usagef("", "--idle cannot be negative")
			}
			if o.server, err = soleTarget(g, cmd.Args().Slice()); err != nil {
				return err
			}
			if st.holder != nil {
				// The holder lives until its session ends: no --timeout.
				return st.runHolder(ctx, g, o)
			}
			ctx, cancel := g.withTimeout(ctx)
			defer cancel()
			return ctxErr(ctx, st.runSessionStart(ctx, g, o))
		},
	}
}

// sessionStopCommand and sessionLogsCommand are `mcpc session stop` and
// `mcpc session logs`.
func sessionStopCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "stop",
		Usage:     "stop sessions: their servers end",
		ArgsUsage: "NAME... | --all",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "all", Usage: "stop every session"}},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			names := cmd.Args().Slice()
			switch all := cmd.Bool("all"); {
			case all && len(names) > 0:
				return usagef("", "give session names or --all, not both")
			case !all && len(names) == 0:
				return usagef("name the sessions to stop, or give --all", "missing NAME")
			}
			return st.sessions(g).Stop(ctx, names)
		}),
	}
}

func sessionLogsCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "logs",
		Usage:     "print what a session's server wrote on stderr",
		ArgsUsage: "NAME",
		Description: `Prints the held server's stderr, kept in the session's private directory
(at most 1MiB and the 1MiB before it), stripped of terminal escapes, as
text. Only its last --max-bytes bytes are printed (--max-bytes 0: all).
A session that ended without being stopped keeps its log until it is
stopped or started again.`,
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			if cmd.Args().Len() != 1 {
				return usagef("mcpc session logs NAME", "give one session's name")
			}
			return st.runSessionLogs(g, cmd.Args().First())
		}),
	}
}

type sessionStart struct {
	server, name string
	idle         time.Duration
	shell        bool // the session ends with the starter's parent
}

// sessions is the sessions as the invocation g sees them.
func (st *state) sessions(g *globals) *client.Sessions {
	return &client.Sessions{
		Store: client.SessionStore(g.dirs.State, st.env.Getenv("XDG_RUNTIME_DIR")),
		Cwd:   g.cwd, Environ: st.env.Environ, Notes: st.env.Stderr, Now: st.env.Now,
		Config: g.loadConfig, AdHoc: g.adhoc,
		HolderArgs: func(name string, idle time.Duration) []string { return st.keepAliveArgs(g, name, idle) },
	}
}

// sessionTarget resolves what session start holds, and its name.
func (st *state) sessionTarget(g *globals, o sessionStart) (*config.Entry, string, error) {
	entry, err := st.connector(g).Resolve(o.server)
	if err != nil {
		return nil, "", err
	}
	name := entry.Name
	switch {
	case o.name != "" && entry.File != nil:
		return nil, "", usagef("leave out --name: a configured server's session is named after it", "--name applies to a --stdio server only")
	case o.name != "":
		name = o.name
		if cfg, err := g.loadConfig(); err == nil && cfg.Servers[name] != nil {
			// A call naming it would mean the configured server.
			return nil, "", usagef("choose another --name", "%q is a configured server's name", name)
		}
	case entry.File == nil:
		return nil, "", usagef("mcpc session start --name NAME --stdio 'command args'", "a --stdio server's session needs --name NAME")
	}
	if name == "" || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) || len(name) > 200 {
		return nil, "", usagef("a session name is 1 to 200 bytes with no control characters", "invalid session name %q", name)
	}
	return entry, name, nil
}

func (st *state) printSession(g *globals, r *clientstate.SessionRecord, what string) error {
	if g.mode == format.ModeText && g.query == "" {
		idle := "until stopped"
		if r.Idle != "0s" {
			idle = "ends after " + r.Idle + " idle"
		}
		if r.Shell != 0 {
			idle += fmt.Sprintf(" or when its shell (pid %d) exits", r.Shell)
		}
		return st.runIO(g).write(fmt.Appendf(nil, "session %s %s: %s (%s, %s), holder pid %d, %s\n",
			r.Name, what, r.Server, r.Transport, r.Revision, r.PID, idle))
	}
	return st.runIO(g).print(format.KindGeneric, client.ShownSession(r))
}

func (st *state) runSessionStart(ctx context.Context, g *globals, o sessionStart) error {
	entry, name, err := st.sessionTarget(g, o)
	if err != nil {
		return err
	}
	s := st.sessions(g)
	// Under the lock: two starts of one session make one holder, and a
	// dead holder's socket is cleaned up by one of them.
	unlock, err := s.Store.Lock(ctx, name)
	if err != nil {
		return fmt.Errorf("cannot lock session %s: %w", name, err)
	}
	defer unlock()
	rec, err := s.Running(ctx, name)
	if err != nil {
		return err
	}
	if rec != nil {
		if rec.Entry != client.EntryIdentity(entry, name, g.cwd) {
			return usagef("stop it first ('mcpc session stop "+shellwords.Quote(name)+"'), or choose another --name",
				"session %s is running and holds another target (%s)", name, rec.Server)
		}
		opts, err := st.connector(g).ConnectOptions(ctx, entry)
		if err != nil {
			return err
		}
		if err := s.SameCredentials(entry, rec, opts); err != nil {
			return err
		}
		textsafe.Note(st.env.Stderr, "session %s is already running", name)
		return st.printSession(g, rec, "already running")
	}
	if rec, err = s.Start(ctx, name, st.argv, o.shell); err != nil {
		return err
	}
	if note := client.StatelessNote(rec); note != "" {
		textsafe.Note(st.env.Stderr, "%s", note)
	}
	return st.printSession(g, rec, "started")
}

// holderArgs reads a holder's command line from stdin (bounded), when
// args are the holder's: Main then runs that command line as the holder,
// its report going to what was stdout (returned).
func holderArgs(env *Env, args []string) ([]string, io.Writer, error) {
	if len(args) != 2 || args[1] != client.HolderCommand {
		return args, nil, nil
	}
	args, out, ok := client.ReadHolderSpec(env.Stdin, env.Stdout)
	if !ok {
		return nil, nil, usagef("", "%s is mcpc's own: it is started by mcpc session start", client.HolderCommand)
	}
	env.Stdout, env.Stdin, env.StdoutTTY = io.Discard, strings.NewReader(""), false
	return args, out, nil
}

// runHolder is the holder (client.Sessions.Hold) of the session o
// starts. A failure before it serves is reported to the starter.
func (st *state) runHolder(ctx context.Context, g *globals, o sessionStart) (err error) {
	reported := false
	report := func(rep client.HolderReport) {
		reported = true
		client.ReportToStarter(st.holder, st.secrets, rep)
	}
	defer func() {
		if err != nil && !reported {
			e := asFailure(err)
			report(client.HolderReport{Error: &client.ReportedError{Code: e.Code, Message: e.Msg, Hint: e.Hint}})
		}
	}()
	h := client.HoldOptions{Idle: o.idle, IdleText: durationText(o.idle), Secrets: st.secrets, WriteWait: holderWriteWait, Report: report}
	if h.Entry, h.Name, err = st.sessionTarget(g, o); err != nil {
		return err
	}
	if ho, ok := st.holder.(*client.HolderOut); ok && o.shell {
		h.Shell = ho.Shell
	}
	if o.shell && h.Shell == nil {
		return fail.New(fail.Internal, "", "the holder was not told which shell it ends with")
	}
	h.Connect = func(ctx context.Context) (client.ConnectOptions, error) {
		return st.connector(g).ConnectOptions(ctx, h.Entry)
	}
	return st.sessions(g).Hold(ctx, h)
}

func (st *state) runSessionList(ctx context.Context, g *globals) error {
	out := st.sessions(g).List(ctx)
	if g.mode != format.ModeText || g.query != "" {
		return st.runIO(g).print(format.KindGeneric, out)
	}
	if len(out) == 0 {
		textsafe.Note(st.env.Stderr, "no sessions")
		return nil
	}
	var b strings.Builder
	for _, l := range out {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\tpid %d\tage %s\trequests %d", l.Name, l.Status, l.Server, l.Revision, l.PID, l.Age, l.Requests)
		if l.IdleLeft != "" {
			fmt.Fprintf(&b, "\tidle left %s", l.IdleLeft)
		}
		if l.Memory > 0 {
			fmt.Fprintf(&b, "\tmemory %.1fMiB", float64(l.Memory)/(1<<20))
		}
		if l.Ended != "" {
			fmt.Fprintf(&b, "\tended: %s", textsafe.OneLine(l.Ended))
		}
		b.WriteByte('\n')
	}
	return st.runIO(g).write([]byte(b.String()))
}

// runSessionLogs prints the end of session name's server log.
func (st *state) runSessionLogs(g *globals, name string) error {
	log, err := st.sessions(g).Log(name, g.maxBytes)
	if err != nil {
		return err
	}
	return st.runIO(g).write(log)
}
