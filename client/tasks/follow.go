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

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// Follow polls a task to its end and returns the final result exactly
// as the server sent it. A task that failed returns its result, if any,
// with an error of code TaskFailed. When ctx ends (Ctrl-C, --timeout) the
// task is cancelled with tasks/cancel, unless o.Keep.
func Follow(ctx context.Context, s Conn, t *Task, o Options) (json.RawMessage, error) {
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
func awaitResult(ctx context.Context, s Conn, t *Task, o Options) (json.RawMessage, error) {
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
func stopped(ctx context.Context, s Conn, t *Task, o Options, err error) error {
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
func taskOutcome(ctx context.Context, s Conn, t *Task) (json.RawMessage, error) {
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
func taskFailedRPC(s Conn, t *Task, rpc *jsonrpc.Error, err error) error {
	return &fail.Error{Code: fail.TaskFailed, Err: err,
		Msg: fmt.Sprintf("the task %s failed on %s: %s (JSON-RPC error %d)", t.ID, s.Label(), rpc.Message, rpc.Code)}
}

// failedResult is the error for a 2025 task that failed but still has a
// result (a tool result with isError): the result is printed, the exit
// status says the task failed.
func failedResult(s Conn, t *Task, res json.RawMessage) error {
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

func taskCancelled(s Conn, t *Task) error {
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
func taskError(ctx context.Context, s Conn, t *Task, err error) error {
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

// answerTask answers a 2026 task's input requests (each key once) and
// sends the answers with tasks/update.
func answerTask(ctx context.Context, s Conn, t *Task, answered map[string]bool) error {
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
