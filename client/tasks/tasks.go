package tasks

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
func createdTask(s Session, raw json.RawMessage) (*Task, error) {
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
func checkTask(s Session, raw json.RawMessage) (*Task, error) {
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
func RunTool(ctx context.Context, s Session, tool string, args map[string]any, o Options) (*ToolRun, error) {
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
func dropTask(ctx context.Context, s Session, raw json.RawMessage) {
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

func notATask(s Session, tool, support string, toolsCall bool) error {
	if !toolsCall {
		return fail.New(fail.Usage, "run it without --task or --detach",
			"%s does not declare task support for tools/call: %q cannot run as a task", s.Label(), tool)
	}
	return fail.New(fail.Usage, "run it without --task or --detach",
		"tool %q cannot run as a task (its execution.taskSupport is %q)", tool, cmp.Or(support, "forbidden"))
}

// Follow polls a task to its end and returns the final result exactly
// as the server sent it. A task that failed returns its result, if any,
// with an error of code TaskFailed. When ctx ends (Ctrl-C, --timeout) the
// task is cancelled with tasks/cancel, unless o.Keep.
func Follow(ctx context.Context, s Session, t *Task, o Options) (json.RawMessage, error) {
	answered := map[string]bool{} // 2026 inputRequests keys, answered once each
	for {
		if o.Status != nil {
			o.Status(t)
		}
		switch t.Status {
		case "completed", "failed":
			res, err := taskOutcome(ctx, s, t)
			if f := fail.As(err); err == nil || f != nil && (f.Code == fail.TaskFailed || f.Code == fail.ToolError) {
				s.Records().Settle(t.ID) // its result is fetched
			}
			return res, stopped(ctx, s, t, o, err)
		case "cancelled":
			s.Records().Settle(t.ID)
			return nil, taskCancelled(s, t)
		case "input_required":
			if !s.Modern() {
				return awaitResult(ctx, s, t, o)
			}
			if err := answerTask(ctx, s, t, answered); err != nil {
				return nil, stopped(ctx, s, t, o, err)
			}
		}
		select {
		case <-ctx.Done():
			return nil, stopped(ctx, s, t, o, context.Cause(ctx))
		case <-time.After(pollPause(t.PollInterval)):
		}
		nt, err := Get(ctx, s, t.ID)
		if err != nil {
			return nil, stopped(ctx, s, t, o, err)
		}
		t = nt
	}
}

// awaitResult handles a 2025 task that needs input: the server asks its
// questions on the tasks/result exchange, which then waits for the end.
// Meanwhile tasks/get keeps the status line current.
func awaitResult(ctx context.Context, s Session, t *Task, o Options) (json.RawMessage, error) {
	type outcome struct {
		res json.RawMessage
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		// It waits for the task's end, by design: only the invocation's
		// bound applies.
		res, err := taskRequest(ctx, s, "tasks/result", t.ID, nil, false)
		done <- outcome{res, err}
	}()
	for {
		select {
		case d := <-done:
			if f := s.Unanswered(); f != nil && ctx.Err() == nil {
				return nil, f
			}
			var rpc *jsonrpc.Error
			if errors.As(d.err, &rpc) && rpc.Code != jsonrpc.CodeInvalidParams && ctx.Err() == nil {
				// tasks/result answers with the underlying request's own
				// error when the task failed: the task's status says so.
				if nt, err := Get(ctx, s, t.ID); err == nil && nt.Status == "failed" {
					s.Records().Settle(t.ID)
					return nil, taskFailedRPC(s, nt, rpc, d.err)
				}
			}
			if d.err != nil {
				return nil, stopped(ctx, s, t, o, taskError(ctx, s, t, d.err))
			}
			s.Records().Settle(t.ID)
			return d.res, failedResult(s, t, d.res)
		case <-time.After(pollPause(t.PollInterval)):
			if nt, err := Get(ctx, s, t.ID); err == nil {
				if t = nt; o.Status != nil {
					o.Status(t)
				}
			}
		}
	}
}

func pollPause(d time.Duration) time.Duration {
	if d <= 0 {
		d = defaultPoll
	}
	return min(max(d, minPoll), maxPoll)
}

// stopped turns err into what to report when the wait ended because the
// user stopped it or --timeout passed: the task is cancelled first.
func stopped(ctx context.Context, s Session, t *Task, o Options, err error) error {
	var silent *silentServer
	if ctx.Err() == nil && !errors.As(err, &silent) {
		return err
	}
	if t.Terminal() && ctx.Err() == nil {
		return &fail.Error{Code: fail.Timeout, Hint: "the server may be overloaded: try again later", Err: err,
			Msg: fmt.Sprintf("%s reported the task %s %s, but did not answer %s within %s", s.Label(), t.ID, t.Status, silent.method, taskRequestBound)}
	}
	what := "the task " + t.ID + " is left running on the server"
	switch {
	case t.Terminal():
		what = "the task " + t.ID + " had ended"
	case !o.Keep:
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelBound)
		_, cerr := taskCall(cctx, s, "tasks/cancel", t.ID, nil)
		cancel()
		what = "cancelled the task " + t.ID
		if cerr != nil {
			what = fmt.Sprintf("could not cancel the task %s (%s)", t.ID, s.Scrub(cerr))
		}
	}
	if ctx.Err() == nil {
		return &fail.Error{Code: fail.Timeout, Hint: "the server may be overloaded: try again later",
			Msg: fmt.Sprintf("%s did not answer %s within %s; %s", s.Label(), silent.method, taskRequestBound, what), Err: err}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &fail.Error{Code: fail.Timeout, Hint: "raise --timeout, or use --detach on an HTTP server and fetch the result later",
			Msg: "timed out: the invocation ran longer than --timeout; " + what, Err: ctx.Err()}
	}
	return &fail.Error{Code: fail.Interrupted, Msg: "interrupted: " + what, Err: context.Cause(ctx)}
}

// taskOutcome fetches a finished task's result.
func taskOutcome(ctx context.Context, s Session, t *Task) (json.RawMessage, error) {
	if s.Modern() {
		if t.Status == "failed" {
			e := rawmsg.View(t.Raw).Get("error")
			msg := fmt.Sprintf("the task %s failed on %s", t.ID, s.Label())
			if m := cmp.Or(e.Get("message").String(), t.StatusMessage); m != "" {
				msg += ": " + m
			}
			if c := e.Get("code"); c.Type == gjson.Number {
				msg += fmt.Sprintf(" (JSON-RPC error %d)", c.Int())
			}
			return nil, fail.New(fail.TaskFailed, "", "%s", msg)
		}
		res := rawmsg.View(t.Raw).Get("result")
		if !res.IsObject() {
			return nil, fail.New(fail.Protocol, "", "%s reported the task %s completed without a result", s.Label(), t.ID)
		}
		return rawmsg.Within(t.Raw, res), nil
	}
	res, err := taskCall(ctx, s, "tasks/result", t.ID, nil)
	var rpc *jsonrpc.Error
	if t.Status == "failed" && errors.As(err, &rpc) && rpc.Code != jsonrpc.CodeInvalidParams {
		return nil, taskFailedRPC(s, t, rpc, err)
	}
	if err != nil {
		return nil, taskError(ctx, s, t, err)
	}
	return res, failedResult(s, t, res)
}

// taskFailedRPC reports a 2025 task that failed with the underlying
// request's own JSON-RPC error, as tasks/result returns it.
func taskFailedRPC(s Session, t *Task, rpc *jsonrpc.Error, err error) error {
	return &fail.Error{Code: fail.TaskFailed, Err: err,
		Msg: fmt.Sprintf("the task %s failed on %s: %s (JSON-RPC error %d)", t.ID, s.Label(), rpc.Message, rpc.Code)}
}

// failedResult is the error for a 2025 task that failed but still has a
// result (a tool result with isError): the result is printed, the exit
// status says the task failed.
func failedResult(s Session, t *Task, res json.RawMessage) error {
	if t.Status == "failed" {
		msg := fmt.Sprintf("the task %s failed on %s", t.ID, s.Label())
		if t.StatusMessage != "" {
			msg += ": " + t.StatusMessage
		}
		return &fail.Error{Code: fail.TaskFailed, Msg: msg}
	}
	if rawmsg.View(res).Get("isError").Bool() {
		return ErrToolError
	}
	return nil
}

func taskCancelled(s Session, t *Task) error {
	if cancelledByUser(s, t.ID) {
		return fail.New(fail.Interrupted, "", "the task %s was cancelled (mcpc task cancel)", t.ID)
	}
	msg := fmt.Sprintf("%s cancelled the task %s", s.Label(), t.ID)
	if t.StatusMessage != "" {
		msg += ": " + t.StatusMessage
	}
	return fail.New(fail.TaskGone, "start the call again", "%s", msg)
}

// taskError reports a JSON-RPC error to a task method. -32602 is the
// spec's answer for a task id the server does not know (never created,
// expired, deleted).
func taskError(ctx context.Context, s Session, t *Task, err error) error {
	var silent *silentServer
	if errors.As(err, &silent) {
		return &fail.Error{Code: fail.Timeout, Hint: "the server may be overloaded: try again later", Err: err,
			Msg: fmt.Sprintf("%s did not answer %s for the task %s within %s", s.Label(), silent.method, t.ID, taskRequestBound)}
	}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) && rpc.Code == jsonrpc.CodeInvalidParams {
		return &fail.Error{Code: fail.TaskGone, Err: err, Hint: "tasks live only as long as their ttl; start the call again",
			Msg: fmt.Sprintf("%s no longer knows the task %s: %s", s.Label(), t.ID, rpc.Message)}
	}
	return s.Explain(ctx, "follow the task "+t.ID+" on", err)
}

// Get sends tasks/get.
func Get(ctx context.Context, s Session, id string) (*Task, error) {
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
func Cancel(ctx context.Context, s Session, id string) (json.RawMessage, error) {
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
func List(ctx context.Context, s Session, limit int64) ([]json.RawMessage, error) {
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

// answerTask answers a 2026 task's input requests (each key once) and
// sends the answers with tasks/update.
func answerTask(ctx context.Context, s Session, t *Task, answered map[string]bool) error {
	var all mcp.InputRequestMap
	if r := rawmsg.View(t.Raw).Get("inputRequests"); r.Exists() {
		if err := json.Unmarshal(rawmsg.Within(t.Raw, r), &all); err != nil {
			return fail.Wrap(fail.Protocol, err, "", "%s sent input requests mcpc cannot read for the task %s", s.Label(), t.ID)
		}
	}
	todo := mcp.InputRequestMap{}
	for _, k := range slices.Sorted(maps.Keys(all)) {
		if !answered[k] {
			todo[k] = all[k]
		}
	}
	if len(todo) == 0 {
		return nil
	}
	answers, err := s.Answer(ctx, todo)
	if err != nil {
		return err
	}
	for k := range todo {
		answered[k] = true
	}
	_, err = taskCall(ctx, s, "tasks/update", t.ID, map[string]any{"inputResponses": answers})
	if err != nil {
		return taskError(ctx, s, t, err)
	}
	return nil
}
