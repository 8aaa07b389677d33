package conn

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/tasks"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/listpages"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// The Session's side of package tasks: the methods commands call, each
// handing the work to tasks with extSession, the interface tasks needs.

// ErrDetachStdio refuses --detach on a stdio server.
var ErrDetachStdio = fail.New(fail.Usage, "run it without --detach, or reach the server over HTTP",
	"--detach needs an HTTP server: a stdio server ends with the invocation that starts it, and its tasks with it")

// RunTool calls a tool, as a task when the tool requires one, when asked
// to (--task) or when a 2026-07-28 server decides so, and follows the
// task to its end unless detached.
func (s *Conn) RunTool(ctx context.Context, tool string, args map[string]any, o tasks.Options) (*tasks.ToolRun, error) {
	if o.Detach && s.http == nil {
		return nil, ErrDetachStdio
	}
	return tasks.RunTool(ctx, extSession{s}, tool, args, o)
}

// FollowTask polls a task to its end (see tasks.Follow).
func (s *Conn) FollowTask(ctx context.Context, t *tasks.Task, o tasks.Options) (json.RawMessage, error) {
	return tasks.Follow(ctx, extSession{s}, t, o)
}

// GetTask sends tasks/get.
func (s *Conn) GetTask(ctx context.Context, id string) (*tasks.Task, error) {
	return tasks.Get(ctx, extSession{s}, id)
}

// CancelTask sends tasks/cancel and returns its result as it arrived.
func (s *Conn) CancelTask(ctx context.Context, id string) (json.RawMessage, error) {
	return tasks.Cancel(ctx, extSession{s}, id)
}

// ListTasks sends tasks/list (2025-11-25; the extension has none), every
// page, and returns the tasks joined in one {"tasks": [...]} document.
func (s *Conn) ListTasks(ctx context.Context) (json.RawMessage, error) {
	pages, err := tasks.List(ctx, extSession{s}, s.pagesLimit())
	return listpages.Join(pages, "tasks", nil), err
}

// EndSettledSessions ends each kept 2025 session whose remembered tasks
// are all settled (see tasks.EndSettledSessions).
func (s *Conn) EndSettledSessions(ctx context.Context) {
	if s.http != nil {
		tasks.EndSettledSessions(ctx, extSession{s})
	}
}

// SessionsOfTasks returns the distinct 2025 sessions holding remembered
// tasks, newest first, for tasks/list.
func (s *Conn) SessionsOfTasks() []string { return tasks.Sessions(s.TaskRecords()) }

// extSession is the Session as the extension packages see it
// (tasks.Session, skills.Session). It is a type of its own: what they
// need (raw requests, the failure explainer) is not for commands to call.
type extSession struct{ s *Conn }

func (t extSession) Label() string { return t.s.Label }

func (t extSession) Modern() bool { return t.s.modern() }

// TaskSupport reads what the server declared as it arrived: the SDK does
// not model execution.taskSupport.
func (t extSession) TaskSupport(tool string) (toolsCall bool, support string) {
	s := t.s
	if s.modern() {
		return t.Extension(TaskExtension).Exists(), ""
	}
	init := last(s.wire.peek("initialize"))
	toolsCall = rawmsg.View(init).Get("capabilities.tasks.requests.tools.call").Exists()
	for _, page := range s.wire.peek("tools/list") {
		if it := listpages.Find(page, "tools", tool); it.Exists() {
			return toolsCall, it.Get("execution.taskSupport").String()
		}
	}
	return toolsCall, ""
}

// peek returns the raw results of method received so far, leaving them.
func (w *wire) peek(method string) []json.RawMessage {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.results[method])
}

func (t extSession) CallTool(ctx context.Context, tool string, args map[string]any, asTask bool) (json.RawMessage, error) {
	if asTask {
		t.s.wire.tasks.askTask(json.RawMessage(`{}`))
	}
	_, raw, err := t.s.CallTool(ctx, tool, args)
	t.s.wire.tasks.askTask(nil)
	return raw, err
}

// Request sends a method of an extension over the layer below the SDK: mcpc's own
// HTTP request (tasks_http.go), or the stdio side channel.
func (t extSession) Request(ctx context.Context, method, id string, extra map[string]any) (json.RawMessage, error) {
	s := t.s
	params := map[string]any{}
	maps.Copy(params, extra)
	if id != "" {
		params["taskId"] = id
	}
	if s.modern() {
		params["_meta"] = s.envelope()
	}
	body, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if s.http != nil {
		return s.post(ctx, method, id, body)
	}
	return s.wire.tap.Side.Call(ctx, method, body)
}

func (t extSession) Explain(ctx context.Context, what string, err error) error {
	return t.s.explain(ctx, what, err)
}

func (t extSession) Scrub(err error) string { return t.s.scrub(err) }

func (t extSession) Answer(ctx context.Context, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	return t.s.input.Fulfil(ctx, reqs)
}

func (t extSession) Unanswered() error { return t.s.input.FailedNow() }

func (t extSession) Note(msg string) { t.s.input.Note(msg) }

func (t extSession) Trace(line string) { trace(t.s.opts, "%s", line) }

func (t extSession) Records() *state.Tasks { return t.s.records() }

func (t extSession) Hold() tasks.Scope {
	s := t.s
	sc := tasks.Scope{ProtocolVersion: s.ProtocolVersion(), Credential: s.wire.credKey}
	if !s.modern() {
		sc.SessionID = s.sessionID()
		// The session holds the task: ending it would end the task.
		s.http.KeepSession()
	}
	return sc
}

func (t extSession) EndSession(ctx context.Context, sid string) error {
	return t.s.http.EndSession(ctx, t.s.Entry.Server.URL, transport.Own{Protocol: t.s.ProtocolVersion(), SessionID: sid})
}

// extSession is all tasks needs.
var _ tasks.Session = extSession{}
