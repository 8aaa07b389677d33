package commands

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/sessions"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/units"
)

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
					if err := noMoreThan(cmd.Args().Slice(), 0, ""); err != nil {
						return err
					}
					return printSessions(st.runIO(g), st.sessions(g).List(ctx), g.structured())
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
			&cli.DurationFlag{Name: "idle", Value: client.DefaultSessionIdle, DefaultText: units.DurationText(client.DefaultSessionIdle), Usage: "end the session after `DURATION` without a request (1s at least; 0: until stopped)"},
			&cli.BoolFlag{Name: "shell", Usage: "end the session when the shell that ran this command exits"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			g, err := st.readGlobals(cmd)
			if err != nil {
				return err
			}
			o := client.StartOptions{Name: cmd.String("name"), Idle: cmd.Duration("idle"), Args: st.argv, Shell: cmd.Bool("shell")}
			if o.Server, err = sessionStartArgs(g, cmd.Args().Slice(), o.Idle); err != nil {
				return err
			}
			if st.holder != nil {
				// The holder lives until its session ends: no --timeout.
				h := sessions.HoldOptions{IdleText: units.DurationText(o.Idle), WriteWait: holderWriteWait}
				return st.connector(g).HoldSession(ctx, o, st.holder, h, fail.From)
			}
			ctx, cancel := g.withTimeout(ctx)
			defer cancel()
			return ctxErr(ctx, runSessionStart(ctx, st.runIO(g), st.connector(g), o, g.structured()))
		},
	}
}

func sessionStopCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "stop",
		Usage:     "stop sessions: their servers end",
		ArgsUsage: "NAME... | --all",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "all", Usage: "stop every session"}},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			names := cmd.Args().Slice()
			if err := sessionStopArgs(names, cmd.Bool("all")); err != nil {
				return err
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
			name, err := sessionLogsArgs(cmd.Args().Slice())
			if err != nil {
				return err
			}
			log, err := st.sessions(g).Log(name, g.maxBytes)
			if err != nil {
				return err
			}
			return st.runIO(g).write(log)
		}),
	}
}

// sessionStartArgs reads start's SERVER, once --idle (idle) is known to
// be 0 or at least the floor a session needs.
func sessionStartArgs(g *globals, args []string, idle time.Duration) (string, error) {
	switch {
	case idle < 0:
		return "", usagef("", "--idle cannot be negative")
	case idle > 0 && idle < config.MinKeepAlive:
		floor := units.DurationText(config.MinKeepAlive)
		return "", usagef("give --idle "+floor+" or more, or --idle 0 to keep it until stopped",
			"--idle %s is below the floor of %s: a session must outlast a call", idle, floor)
	}
	return soleTarget(g, args)
}

// sessionStopArgs checks stop's NAME... against --all (all): one or the
// other.
func sessionStopArgs(names []string, all bool) error {
	switch {
	case all && len(names) > 0:
		return usagef("", "give session names or --all, not both")
	case !all && len(names) == 0:
		return usagef("name the sessions to stop, or give --all", "missing NAME")
	}
	return nil
}

// sessionLogsArgs reads logs' one NAME.
func sessionLogsArgs(args []string) (string, error) {
	if len(args) != 1 {
		return "", usagef("mcpc session logs NAME", "give one session's name")
	}
	return args[0], nil
}

// runSessionStart starts the session o asks for (or finds it running) and prints it.
func runSessionStart(ctx context.Context, rio runIO, conn *client.Connector[connection], o client.StartOptions, structured bool) error {
	rec, running, err := conn.StartSession(ctx, o)
	if err != nil {
		return err
	}
	if structured {
		return rio.print(format.KindGeneric, sessions.ShownSession(rec))
	}
	return rio.write(format.SessionText(sessionView(sessions.ShownSession(rec)), running))
}

// holderArgs is sessions.HolderArgs over env: a holder has no stdin or stdout of its own.
func holderArgs(env *Env, args []string) ([]string, io.Writer, error) {
	args, out, err := sessions.HolderArgs(args, env.Stdin, env.Stdout)
	if out != nil {
		env.Stdout, env.Stdin, env.StdoutTTY = io.Discard, strings.NewReader(""), false
	}
	return args, out, err
}

// printSessions prints session list's sessions.
func printSessions(rio runIO, out []sessions.SessionListed, structured bool) error {
	if structured {
		return rio.print(format.KindGeneric, out)
	}
	if len(out) == 0 {
		textsafe.Note(rio.stderr, "no sessions")
		return nil
	}
	rows := make([]format.SessionRow, len(out))
	for i, l := range out {
		rows[i] = sessionRow(l)
	}
	return rio.write(format.SessionsText(rows))
}
