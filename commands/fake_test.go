package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/conn"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/skills"
	clientstate "github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/tasks"
	"github.com/mcpc-dev/mcpc/creds"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// fakeServer is a connector whose sessions answer from canned tools,
// results and tasks, and which records what the commands asked of it.
type fakeServer struct {
	tools []*mcp.Tool
	// runs answers RunTool by tool name; a tool missing from it is an
	// error no test expects.
	runs map[string]fakeRun
	// connectErr fails the connect (and openTasks) itself.
	connectErr error

	// tasks answer GetTask and FollowTask by id.
	tasks map[string]fakeTask
	// cancels answers CancelTask by id.
	cancels map[string]json.RawMessage
	modern  bool
	pingErr error
	// init is the handshake's answer; lists answer ListRaw by kind.
	init  *mcp.InitializeResult
	lists map[string]json.RawMessage
	// records are the remembered detached tasks (2026-07-28 list).
	records []*clientstate.TaskRecord
	// sessions are the remembered 2025 sessions and what tasks/list
	// answers in each.
	sessions     []string
	sessionTasks map[string]json.RawMessage

	// connectErrs fails the connect to the named servers.
	connectErrs map[string]error

	// What was asked.
	connects []conn.ConnectOptions
	calls    []fakeCall
	closed   int
	ended    int // EndSettledHTTPSessions
	used     string
}

// fakeRun is the outcome of one tools/call; statuses are the task
// statuses RunTool reports to TaskOptions.Status while it follows a task.
type fakeRun struct {
	run      *tasks.ToolRun
	err      error
	statuses []string
}

// fakeTask is a task as GetTask sees it, and what following it yields.
type fakeTask struct {
	task   *tasks.Task
	getErr error
	result json.RawMessage
	err    error
}

// fakeCall is one RunTool call as the command made it.
type fakeCall struct {
	tool string
	args map[string]any
	opts tasks.Options
}

// fakeMu guards a fakeServer: mcpc list --check and mcpc grep connect
// from several goroutines. (A package variable: tests copy fakeServers.)
var fakeMu sync.Mutex

func (f *fakeServer) connect(_ context.Context, e *config.Entry, o conn.ConnectOptions) (connection, error) {
	fakeMu.Lock()
	defer fakeMu.Unlock()
	f.connects = append(f.connects, o)
	if err := f.connectErrs[e.Name]; err != nil {
		return nil, err
	}
	if f.connectErr != nil {
		return nil, f.connectErr
	}
	return &fakeSession{f: f, name: fmt.Sprintf("server %q", e.Name)}, nil
}

func (f *fakeServer) openTasks(_ context.Context, _ *config.Entry, o conn.ConnectOptions, _ string) (taskConnection, error) {
	f.connects = append(f.connects, o)
	if f.connectErr != nil {
		return nil, f.connectErr
	}
	return &fakeTaskSession{f: f}, nil
}

type fakeSession struct {
	f    *fakeServer
	name string
}

func (s *fakeSession) ListTools(_ context.Context, _ ...string) ([]*mcp.Tool, error) {
	return s.f.tools, nil
}

func (s *fakeSession) FindTool(tools []*mcp.Tool, name string) (*mcp.Tool, error) {
	for _, t := range tools {
		if t.Name == name {
			return t, nil
		}
	}
	return nil, fail.New(fail.Rejected, "list the tools with: mcpc list fake", "%s has no tool named %q", s.name, name)
}

func (s *fakeSession) RunTool(_ context.Context, tool string, args map[string]any, o tasks.Options) (*tasks.ToolRun, error) {
	s.f.calls = append(s.f.calls, fakeCall{tool, args, o})
	r, ok := s.f.runs[tool]
	if !ok {
		return nil, fmt.Errorf("the fake has no run for %q", tool)
	}
	if o.Status != nil && r.run != nil && r.run.Task != nil {
		for _, st := range r.statuses {
			o.Status(&tasks.Task{ID: r.run.Task.ID, Status: st})
		}
	}
	return r.run, r.err
}

func (s *fakeSession) ListRaw(_ context.Context, kind string) (json.RawMessage, error) {
	if raw, ok := s.f.lists[kind]; ok {
		return raw, nil
	}
	return nil, fmt.Errorf("ListRaw is not faked")
}

func (s *fakeSession) ReadResource(context.Context, string) (json.RawMessage, error) {
	return nil, fmt.Errorf("ReadResource is not faked")
}

func (s *fakeSession) GetPrompt(context.Context, string, map[string]string) (json.RawMessage, error) {
	return nil, fmt.Errorf("GetPrompt is not faked")
}

func (s *fakeSession) Complete(context.Context, *mcp.CompleteReference, string, string, map[string]string) ([]string, bool, error) {
	return nil, false, fmt.Errorf("Complete is not faked")
}

func (s *fakeSession) ListSkills(context.Context) (json.RawMessage, error) {
	return json.RawMessage(`{"skills":[]}`), nil
}

func (s *fakeSession) GetSkill(context.Context, string, bool) (*skills.Entry, []skills.Fetched, error) {
	return nil, nil, fail.New(fail.Rejected, "", "no skills")
}

func (s *fakeSession) ListHint() string { return "mcpc list fake" }
func (s *fakeSession) Ping(context.Context) (time.Duration, error) {
	return time.Millisecond, s.f.pingErr
}
func (s *fakeSession) End(context.Context, bool) { s.f.closed++ }
func (s *fakeSession) Close()                    { s.f.closed++ }
func (s *fakeSession) label() string             { return s.name }
func (s *fakeSession) initializeResult() *mcp.InitializeResult {
	if s.f.init != nil {
		return s.f.init
	}
	return &mcp.InitializeResult{}
}
func (s *fakeSession) speaksSSE() bool { return false }

type fakeTaskSession struct{ f *fakeServer }

func (s *fakeTaskSession) GetTask(_ context.Context, id string) (*tasks.Task, error) {
	t, ok := s.f.tasks[id]
	if !ok {
		return nil, fail.New(fail.TaskGone, "", "no task %s", id)
	}
	return t.task, t.getErr
}

func (s *fakeTaskSession) FollowTask(_ context.Context, t *tasks.Task, o tasks.Options) (json.RawMessage, error) {
	ft := s.f.tasks[t.ID]
	if o.Status != nil {
		o.Status(t)
	}
	s.f.calls = append(s.f.calls, fakeCall{tool: "follow " + t.ID, opts: o})
	return ft.result, ft.err
}

func (s *fakeTaskSession) CancelTask(_ context.Context, id string) (json.RawMessage, error) {
	raw, ok := s.f.cancels[id]
	if !ok {
		return nil, fail.New(fail.TaskGone, "", "no task %s", id)
	}
	return raw, nil
}

func (s *fakeTaskSession) ListTasks(context.Context) (json.RawMessage, error) {
	raw, ok := s.f.sessionTasks[s.f.used]
	if !ok {
		return nil, fail.New(fail.Rejected, "", "session %s is gone", s.f.used)
	}
	return raw, nil
}

func (s *fakeTaskSession) Modern() bool                           { return s.f.modern }
func (s *fakeTaskSession) TaskRecords() []*clientstate.TaskRecord { return s.f.records }
func (s *fakeTaskSession) HTTPSessionsOfTasks() []string          { return s.f.sessions }
func (s *fakeTaskSession) UseHTTPSession(id string)               { s.f.used = id }
func (s *fakeTaskSession) EndSettledHTTPSessions(context.Context) { s.f.ended++ }

// runFake runs one invocation of Main over f, with stdin, stdout not a
// terminal, and a home and keyring of its own.
func runFake(t *testing.T, f *fakeServer, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	home := t.TempDir()
	var out, errOut strings.Builder
	env := Env{
		Stdin:     strings.NewReader(stdin),
		Stdout:    &out,
		Stderr:    &errOut,
		Getenv:    func(k string) string { return map[string]string{"HOME": home}[k] },
		Environ:   func() []string { return nil },
		Getwd:     func() (string, error) { return home, nil },
		Now:       time.Now,
		Keyring:   creds.NewMemStore(),
		connector: f,
	}
	code = Main(context.Background(), append([]string{"mcpc"}, args...), env)
	return code, out.String(), errOut.String()
}

// result is a tools/call result as a server sends it, "type" before
// "text" (Go would sort the keys; the output keeps the server's order).
func result(text string, isError bool) json.RawMessage {
	t, _ := json.Marshal(text)
	return json.RawMessage(fmt.Sprintf(`{"content":[{"type":"text","text":%s}],"isError":%t}`, t, isError))
}
