package tasks

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// ErrToolError means the tool reported isError: the result was printed;
// the exit status says so and nothing more is printed. A call that ran
// as a task and one that did not end the same way (client.ErrToolError).
var ErrToolError = &fail.Error{Code: fail.ToolError, Msg: "the tool reported an error"}

// Bounds on the pause between polls, whatever the server suggests: a
// server asking for 0 ms must not be hammered, one asking for an hour
// must not leave a terminal silent.
var (
	minPoll     = 200 * time.Millisecond
	maxPoll     = 5 * time.Second
	defaultPoll = time.Second
	// cancelBound is how long a cancellation may take after Ctrl-C or
	// --timeout: the user is waiting.
	cancelBound = 2 * time.Second
)

// Task is a server's task as mcpc follows it, in either era.
type Task struct {
	ID            string
	Status        string
	StatusMessage string
	PollInterval  time.Duration   // 0: not given
	TTLMs         int64           // the task's lifetime; 0: unlimited or not given
	Raw           json.RawMessage // the task object as the server sent it
}

// Terminal reports whether the task has ended.
func (t *Task) Terminal() bool {
	switch t.Status {
	case "completed", "failed", "cancelled":
		return true
	}
	return false
}

// parseTask reads a task object; both eras' field names are accepted.
func parseTask(raw json.RawMessage) (*Task, error) {
	r := rawmsg.View(raw)
	if !r.IsObject() {
		return nil, errors.New("the task is not a JSON object")
	}
	t := &Task{
		ID:            r.Get("taskId").String(),
		Status:        r.Get("status").String(),
		StatusMessage: r.Get("statusMessage").String(),
		Raw:           raw,
	}
	if r.Get("taskId").Type != gjson.String || t.ID == "" {
		return nil, errors.New("the task has no taskId")
	}
	if !printableID(t.ID) {
		// It would reach the terminal, the shell line mcpc suggests and
		// the scripts that read it: refused rather than altered.
		return nil, fmt.Errorf("the task id %q has control characters or is not UTF-8", t.ID)
	}
	for _, k := range []string{"ttlMs", "ttl"} {
		if v := r.Get(k); v.Type == gjson.Number && v.Int() > 0 {
			t.TTLMs = v.Int()
			break
		}
	}
	for _, k := range []string{"pollIntervalMs", "pollInterval"} {
		if v := r.Get(k); v.Type == gjson.Number && v.Int() >= 0 {
			// Bounded before the conversion: 1e13 ms would overflow a
			// Duration and wrap around.
			t.PollInterval = time.Duration(min(v.Int(), int64(24*time.Hour/time.Millisecond))) * time.Millisecond
			break
		}
	}
	switch t.Status {
	case "working", "input_required", "completed", "failed", "cancelled":
	default:
		return nil, fmt.Errorf("the task has an unknown status %q", t.Status)
	}
	return t, nil
}

// printableID reports whether a task id prints as itself: valid UTF-8
// without control characters (C0, DEL, C1) or bidirectional overrides.
func printableID(id string) bool {
	if !utf8.ValidString(id) {
		return false
	}
	for _, r := range id {
		if unicode.IsControl(r) || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			return false
		}
	}
	return true
}

// createdTask returns the task a tools/call result created, or nil for an
// ordinary result.
func createdTask(s Conn, raw json.RawMessage) (*Task, error) {
	res := rawmsg.View(raw)
	if s.Modern() {
		if res.Get("resultType").String() != "task" {
			return nil, nil
		}
		return checkTask(s, raw)
	}
	t := res.Get("task")
	if !t.IsObject() || res.Get("content").Exists() {
		return nil, nil
	}
	return checkTask(s, rawmsg.Within(raw, t))
}

// checkTask reads a task the server sent.
func checkTask(s Conn, raw json.RawMessage) (*Task, error) {
	t, err := parseTask(raw)
	if err != nil {
		return nil, fail.Wrap(fail.Protocol, err, "", "%s sent an invalid task", s.Label())
	}
	return t, nil
}

// Options say how a tool call runs as a task.
type Options struct {
	// Ask runs a tool whose taskSupport is "optional" as a task (--task).
	Ask bool
	// Detach returns once the server has accepted the task (--detach),
	// which needs an HTTP server: the caller refuses it on stdio.
	Detach bool
	// Status sees the task at each poll (for the progress line).
	Status func(*Task)
	// Keep leaves the task running when the wait is stopped (resuming a
	// detached task: stopping the wait is not cancelling the work).
	Keep bool
}

// ToolRun is the outcome of a tool call that may have run as a task.
type ToolRun struct {
	Result json.RawMessage   // the final result exactly as sent; nil when detached
	Task   *Task             // the task, when the call ran as one
	Record *state.TaskRecord // what was remembered of a detached task
}

// RunTool calls a tool, as a task when the tool requires one, when asked
// to (--task) or when a 2026-07-28 server decides so, and follows the
// task to its end unless detached.
func RunTool(ctx context.Context, s Conn, tool string, args map[string]any, o Options) (*ToolRun, error) {
	toolsCall, support := s.TaskSupport(tool)
	asTask := false
	if !s.Modern() {
		asTask = legacyAsTask(toolsCall, support, o)
		if (o.Ask || o.Detach) && !asTask {
			return nil, notATask(s, tool, support, toolsCall)
		}
	} else if (o.Detach || o.Ask) && !toolsCall {
		return nil, notATask(s, tool, "", false)
	}
	raw, err := s.CallTool(ctx, tool, args, asTask)
	if err != nil {
		return nil, err
	}
	task, err := createdTask(s, raw)
	if err != nil {
		dropTask(ctx, s, raw)
		return nil, err
	}
	if task == nil {
		if o.Detach {
			s.Note(fmt.Sprintf("%s answered the call of %q at once, without a task: nothing to detach", s.Label(), tool))
		}
		return &ToolRun{Result: raw}, nil
	}
	run := &ToolRun{Task: task}
	if o.Detach {
		rec, err := rememberTask(s, task, tool)
		if err != nil {
			return nil, err
		}
		run.Record = rec
		return run, nil
	}
	run.Result, err = Follow(ctx, s, task, o)
	return run, err
}

// legacyAsTask decides whether a 2025-11-25 tools/call asks for a task:
// the server must declare tasks for tools/call, and the tool require one,
// or allow one and the user ask for it (--task, or --detach, which only
// makes sense with one).
func legacyAsTask(toolsCall bool, support string, o Options) bool {
	return toolsCall && (support == "required" || support == "optional" && (o.Ask || o.Detach))
}

// dropTask cancels, as far as it can, a task mcpc refused to follow (an
// invalid task object), so that it is not left running unseen.
func dropTask(ctx context.Context, s Conn, raw json.RawMessage) {
	res := rawmsg.View(raw)
	id := res.Get("task.taskId") // 2025-11-25
	if s.Modern() {
		id = res.Get("taskId")
	}
	if id.Type != gjson.String || id.String() == "" {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelBound)
	defer cancel()
	taskCall(cctx, s, "tasks/cancel", id.String(), nil)
}

func notATask(s Conn, tool, support string, toolsCall bool) error {
	if !toolsCall {
		return fail.New(fail.Usage, "run it without --task or --detach",
			"%s does not declare task support for tools/call: %q cannot run as a task", s.Label(), tool)
	}
	return fail.New(fail.Usage, "run it without --task or --detach",
		"tool %q cannot run as a task (its execution.taskSupport is %q)", tool, cmp.Or(support, "forbidden"))
}

// Get sends tasks/get.
func Get(ctx context.Context, s Conn, id string) (*Task, error) {
	raw, err := taskCall(ctx, s, "tasks/get", id, nil)
	if err != nil {
		err = taskError(ctx, s, &Task{ID: id}, err)
		if f := fail.As(err); f != nil && f.Code == fail.TaskGone {
			s.Records().Settle(id) // nothing left to reach
		}
		return nil, err
	}
	t, err := checkTask(s, raw)
	if err == nil && t.ID != id {
		// Following it would poll (and cancel) another task than the
		// user's.
		return nil, fail.New(fail.Protocol, "", "%s answered tasks/get for the task %s with the task %s", s.Label(), id, t.ID)
	}
	if err == nil && t.Status == "cancelled" {
		s.Records().Settle(id)
	}
	return t, err
}

// Cancel sends tasks/cancel and returns its result as it arrived.
func Cancel(ctx context.Context, s Conn, id string) (json.RawMessage, error) {
	raw, err := taskCall(ctx, s, "tasks/cancel", id, nil)
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) && rpc.Code == jsonrpc.CodeInvalidParams {
		// To tasks/cancel, -32602 also means a task that has ended
		// already: the server refuses, it need not have lost the task.
		return nil, &fail.Error{Code: fail.TaskGone, Err: err, Hint: "mcpc task get shows its status",
			Msg: fmt.Sprintf("%s refused to cancel the task %s: %s", s.Label(), id, rpc.Message)}
	}
	if err != nil {
		return nil, taskError(ctx, s, &Task{ID: id}, err)
	}
	// The end is reported as the user's, not the server's. Failing to
	// remember costs that precision only.
	s.Records().MarkCancelled(id)
	if rawmsg.View(raw).Get("status").String() == "cancelled" {
		s.Records().Settle(id) // 2025-11-25: the server says it is cancelled
	}
	return raw, nil
}

// List sends tasks/list (2025-11-25; the extension has none) and returns
// every page as it arrived. The pages together are bounded by limit, as if
// they were one message.
func List(ctx context.Context, s Conn, limit int64) ([]json.RawMessage, error) {
	var pages []json.RawMessage
	cursor, seen, size := "", map[string]bool{}, int64(0)
	for {
		if len(pages) == maxTaskPages || size > limit {
			return nil, fail.New(fail.Protocol, "", "%s sent more than %d pages or %d MiB of tasks: mcpc stopped listing them",
				s.Label(), len(pages), limit>>20)
		}
		var extra map[string]any
		if cursor != "" {
			extra = map[string]any{"cursor": cursor}
		}
		raw, err := taskCall(ctx, s, "tasks/list", "", extra)
		if err != nil {
			var silent *silentServer
			if errors.As(err, &silent) {
				return nil, &fail.Error{Code: fail.Timeout, Hint: "the server may be overloaded: try again later", Err: err,
					Msg: fmt.Sprintf("%s did not answer tasks/list within %s", s.Label(), taskRequestBound)}
			}
			return nil, s.Explain(ctx, "list the tasks of", err)
		}
		pages, size = append(pages, raw), size+int64(len(raw))
		rawmsg.View(raw).Get("tasks").ForEach(func(_, t gjson.Result) bool {
			if t.Get("status").String() == "cancelled" {
				s.Records().Settle(t.Get("taskId").String())
			}
			return true
		})
		if cursor = rawmsg.View(raw).Get("nextCursor").String(); cursor == "" {
			break
		}
		if seen[cursor] {
			return nil, fail.New(fail.Protocol, "", "%s sent the tasks/list cursor %q twice: its list of tasks does not end", s.Label(), cursor)
		}
		seen[cursor] = true
	}
	return pages, nil
}

// maxTaskPages bounds tasks/list: a server whose list never ends (fresh
// cursors for ever) is stopped there.
const maxTaskPages = 100
