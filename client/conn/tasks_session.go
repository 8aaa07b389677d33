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

// The connection's side of package tasks: the methods commands call, each
// handing the work to tasks with taskConn, the interface tasks needs.

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
	return tasks.RunTool(ctx, taskConn{s}, tool, args, o)
}

// FollowTask polls a task to its end (see tasks.Follow).
func (s *Conn) FollowTask(ctx context.Context, t *tasks.Task, o tasks.Options) (json.RawMessage, error) {
	return tasks.Follow(ctx, taskConn{s}, t, o)
}

// GetTask sends tasks/get.
func (s *Conn) GetTask(ctx context.Context, id string) (*tasks.Task, error) {
	return tasks.Get(ctx, taskConn{s}, id)
}

// CancelTask sends tasks/cancel and returns its result as it arrived.
func (s *Conn) CancelTask(ctx context.Context, id string) (json.RawMessage, error) {
	return tasks.Cancel(ctx, taskConn{s}, id)
}

// ListTasks sends tasks/list (2025-11-25; the extension has none), every
// page, and returns the tasks joined in one {"tasks": [...]} document.
func (s *Conn) ListTasks(ctx context.Context) (json.RawMessage, error) {
	pages, err := tasks.List(ctx, taskConn{s}, s.pagesLimit())
	return listpages.Join(pages, "tasks", nil), err
}

// EndSettledHTTPSessions ends each kept 2025 session whose remembered tasks
// are all settled (see tasks.EndSettledHTTPSessions).
func (s *Conn) EndSettledHTTPSessions(ctx context.Context) {
	if s.http != nil {
		tasks.EndSettledHTTPSessions(ctx, taskConn{s})
	}
}

// HTTPSessionsOfTasks returns the distinct 2025 sessions holding remembered
// tasks, newest first, for tasks/list.
func (s *Conn) HTTPSessionsOfTasks() []string { return tasks.HTTPSessions(s.TaskRecords()) }

// taskConn is the connection as the extension packages see it
// (tasks.Conn, skills.Conn). It is a type of its own: what they
// need (raw requests, the failure explainer) is not for commands to call.
type taskConn struct{ s *Conn }

func (t taskConn) Label() string { return t.s.Label }

func (t taskConn) Modern() bool { return t.s.modern() }

// TaskSupport reads what the server declared as it arrived: the SDK does
// not model execution.taskSupport.
func (t taskConn) TaskSupport(tool string) (toolsCall bool, support string) {
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

func (t taskConn) CallTool(ctx context.Context, tool string, args map[string]any, asTask bool) (json.RawMessage, error) {
	if asTask {
		t.s.wire.tasks.askTask(json.RawMessage(`{}`))
	}
	_, raw, err := t.s.CallTool(ctx, tool, args)
	t.s.wire.tasks.askTask(nil)
	return raw, err
}

// Request sends a method of an extension over the layer below the SDK: mcpc's own
// HTTP request (tasks_http.go), or the stdio side channel.
func (t taskConn) Request(ctx context.Context, method, id string, extra map[string]any) (json.RawMessage, error) {
	s := t.s
	params := map[string]any{}
	maps.Copy(params, extra)
	if id != "" {
		params["taskId"] = id
	}
	body, err := s.ownParams(params)
	if err != nil {
		return nil, err
	}
	if s.http != nil {
		return s.post(ctx, method, id, body)
	}
	return s.wire.tap.Side.Call(ctx, method, body)
}

// ownParams are the params of one of mcpc's own requests: p, with the
// _meta envelope on a 2026-07-28 server.
func (s *Conn) ownParams(p map[string]any) (json.RawMessage, error) {
	if s.modern() {
		p["_meta"] = s.envelope()
	}
	return json.Marshal(p)
}

func (t taskConn) Explain(ctx context.Context, what string, err error) error {
	return t.s.explain(ctx, what, err)
}

func (t taskConn) Scrub(err error) string { return t.s.scrub(err) }

func (t taskConn) Answer(ctx context.Context, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	return t.s.input.Fulfil(ctx, reqs)
}

func (t taskConn) Unanswered() error { return t.s.input.FailedNow() }

func (t taskConn) Note(msg string) { t.s.input.Note(msg) }

func (t taskConn) Trace(line string) { trace(t.s.opts, "%s", line) }

func (t taskConn) Records() *state.Tasks { return t.s.records() }

func (t taskConn) Hold() tasks.Scope {
	s := t.s
	sc := tasks.Scope{ProtocolVersion: s.ProtocolVersion(), Credential: s.wire.credKey}
	if !s.modern() {
		sc.SessionID = s.httpSession()
		// The session holds the task: ending it would end the task.
		s.http.KeepSession()
	}
	return sc
}

func (t taskConn) EndHTTPSession(ctx context.Context, sid string) error {
	return t.s.http.EndSession(ctx, t.s.Entry.Server.URL, transport.Own{Protocol: t.s.ProtocolVersion(), SessionID: sid})
}

// taskConn is all tasks needs.
var _ tasks.Conn = taskConn{}
