package commands

import (
	"context"
	"encoding/json"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/tasks"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

type taskOptions struct {
	op       string // get, result, cancel, list
	server   string
	id       string
	progress bool
	// structured: print the server's JSON (or --query of it), not text.
	structured bool
	strict     bool // --strict, for the result's check
}

func taskCommand(st *state) *cli.Command {
	sub := func(name, usage, args, desc string, flags ...cli.Flag) *cli.Command {
		return &cli.Command{
			Flags:       flags,
			Name:        name,
			Usage:       usage,
			ArgsUsage:   args,
			Description: desc,
			Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
				o := &taskOptions{op: name, progress: cmd.Bool("progress"), structured: g.structured(), strict: g.strict}
				var err error
				if o.server, o.id, err = taskArgs(g, name, cmd.Args().Slice()); err != nil {
					return err
				}
				return runTask(ctx, st.runIO(g), o)
			}),
		}
	}
	return &cli.Command{
		Name:      "task",
		Usage:     "follow, fetch or cancel a task started with mcpc call --detach",
		ArgsUsage: "get|result|cancel SERVER TASK_ID | list SERVER",
		Description: `A tool that runs as a task on an HTTP server can be left running
(mcpc call --detach) and reached from later invocations. mcpc remembers each
detached task in its state directory with what the server ties it to (the
2025-11-25 HTTP session, the credential), so that later invocations reach the
same task. A 2025-11-25 HTTP session is ended (DELETE), and its tasks forgotten, once
each of them is settled: its result fetched, cancelled, or unknown to the
server. A task you cancelled is remembered as such for a day: task get and
task result then exit 130.`,
		Metadata: helptext.Examples(
			"start a task, then wait for its result", "id=$(mcpc call --text --detach everything simulate-research-query topic=go) && mcpc task result everything \"$id\"",
			"its status, as JSON", "mcpc task get everything \"$id\" --json",
		),
		Action: func(_ context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() == 0 {
				return usagef("mcpc task get|result|cancel SERVER TASK_ID, or mcpc task list SERVER", "missing what to do: get, result, cancel or list")
			}
			return usagef("mcpc task get|result|cancel SERVER TASK_ID, or mcpc task list SERVER", "unknown task command %q", cmd.Args().First())
		},
		Commands: []*cli.Command{
			sub("get", "print a task's status", "SERVER TASK_ID",
				`Prints the task object as the server sends it (--json), or its id, status
and status message.`),
			sub("result", "wait for a task to end and print its result", "SERVER TASK_ID",
				`Polls the task until it ends, answers what it asks like any other question,
and prints the final result exactly as 'mcpc call' would, with the same exit
codes. Ctrl-C stops waiting and leaves the task running.`,
				&cli.BoolFlag{Name: "progress", Usage: "print the task's status on stderr even when it is not a terminal"}),
			sub("cancel", "cancel a task", "SERVER TASK_ID",
				`Sends tasks/cancel and prints the server's answer.`),
			sub("list", "list the tasks mcpc started on a server", "SERVER",
				`Prints the tasks of the sessions mcpc remembers (tasks/list on a 2025-11-25
server; on a 2026-07-28 server, which has no such request, the status of
each remembered task).`),
		},
	}
}

// taskArgs reads op's SERVER and TASK_ID (list: SERVER only).
func taskArgs(g *globals, op string, words []string) (server, id string, err error) {
	want := 2
	if op == "list" {
		want = 1
	}
	switch {
	case g.adhoc.IsStdio():
		return "", "", usagef("run the call without --detach to wait for its result",
			"mcpc task needs an HTTP server: a stdio server's tasks end with the invocation that starts them")
	case len(words) == 0:
		return "", "", usagef("name a configured server or an https:// URL", "missing SERVER")
	case len(words) < want:
		return "", "", usagef("task ids come from mcpc call --detach; mcpc task list SERVER lists them", "missing TASK_ID")
	}
	if err := noMoreThan(words, want, ""); err != nil {
		return "", "", err
	}
	if want == 2 {
		id = words[1]
	}
	return words[0], id, nil
}

// runTask reaches the server's detached tasks and does o.op: the
// server's answer printed as JSON when structured, else as text.
func runTask(ctx context.Context, rio runIO, o *taskOptions) error {
	entry, err := rio.entry(o.server, nil)
	if err != nil {
		return err
	}
	sess, err := rio.openTasks(ctx, entry, o.id)
	if err != nil {
		return err
	}
	// A 2025 session kept for detached tasks that are all settled now
	// (result fetched, cancelled, gone) is ended.
	defer sess.EndSettledHTTPSessions(ctx)
	if o.op == "result" {
		return taskResult(ctx, rio, sess, o)
	}
	raw, text, err := taskAnswer(ctx, rio.stderr, sess, o)
	switch {
	case err != nil:
		return err
	case o.structured:
		return rio.printRaw(format.KindGeneric, raw)
	}
	return rio.write([]byte(text))
}

// taskAnswer does get, cancel or list: the server's answer and its text.
// list notes each remembered task it could not reach.
func taskAnswer(ctx context.Context, notes io.Writer, sess taskConnection, o *taskOptions) (json.RawMessage, string, error) {
	switch o.op {
	case "get":
		t, err := sess.GetTask(ctx, o.id)
		if err != nil {
			return nil, "", err
		}
		return t.Raw, format.TaskLine(t.ID, t.Status, t.StatusMessage), nil
	case "cancel":
		// --json prints the answer as sent (a 2026-07-28 server's is empty).
		raw, err := sess.CancelTask(ctx, o.id)
		if err != nil {
			return nil, "", err
		}
		return raw, format.CancelLine(o.id, raw), nil
	}
	doc, errs := tasks.ListRemembered(ctx, sess)
	for _, err := range errs {
		textsafe.Note(notes, "%s", textsafe.OneLine(err.Error()))
	}
	return doc, format.TaskLines(doc), nil
}

// taskResult follows the task to its end and prints its result as call
// does.
func taskResult(ctx context.Context, rio runIO, sess taskConnection, o *taskOptions) error {
	t, err := sess.GetTask(ctx, o.id)
	if err != nil {
		return err
	}
	stop := rio.progress(o.progress)
	res, err := sess.FollowTask(ctx, t, tasks.Options{Status: rio.taskStatus, Keep: true})
	stop()
	if res == nil {
		return err
	}
	return printToolResult(ctx, rio, o.strict, nil, res, err)
}

// printDetached prints a detached task: its id (the task object when
// structured) on stdout, and how to reach it on stderr; label is how
// messages name the server.
func printDetached(rio runIO, structured bool, entry *config.Entry, label string, run *tasks.ToolRun) error {
	textsafe.Note(rio.stderr, "task %s runs on %s; follow it with: mcpc task result %s %s",
		textsafe.OneLine(run.Task.ID), label, shellwords.Quote(entry.ShownName()), shellwords.Quote(run.Task.ID))
	if structured {
		return rio.printRaw(format.KindGeneric, run.Task.Raw)
	}
	return rio.write([]byte(textsafe.StripControl(run.Task.ID) + "\n"))
}
