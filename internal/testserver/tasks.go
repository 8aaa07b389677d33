package testserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The 2026-07-28 tasks extension (io.modelcontextprotocol/tasks), served
// below the SDK, which has no task support: with --tasks, calls of the
// task-* tools from a client that declares the extension come back as
// tasks (resultType "task"), and tasks/get, tasks/update and tasks/cancel
// are answered here. Each tool is one way a task can go.
const taskExtension = "io.modelcontextprotocol/tasks"

// The task tools and what their tasks do; tests pin these.
var taskTools = map[string]string{
	"task-steps":   "completes after three polls, reporting each step",
	"task-fail":    "fails with a JSON-RPC error on the first poll",
	"task-endless": "works until cancelled (recorded in --cancel-file)",
	"task-expire":  "is forgotten at once, as a task whose ttl passed",
	"task-ask":     "asks for a name (input_required), then greets it",
	// Hostile ids: one a shell and a file name must survive, one that
	// must not reach a terminal.
	"task-odd-id":     "has an id with path separators, a space and a quote, and works until cancelled",
	"task-hostile-id": "has an id with a terminal escape sequence",
}

const (
	taskPollMs    = 10 // below mcpc's lower bound, on purpose
	taskFailMsg   = "the backend went away"
	taskExpiredMs = 50
)

type serverTask struct {
	id, tool, status, message string
	polls                     int
	name                      string // task-ask's answer
	created                   time.Time
}

type taskStore struct {
	mu         sync.Mutex
	seq        int
	tasks      map[string]*serverTask
	cancelFile string
}

func newTaskStore(cancelFile string) *taskStore {
	return &taskStore{tasks: map[string]*serverTask{}, cancelFile: cancelFile}
}

// addTaskTools lists the task tools; called directly (without the
// extension) they refuse, as a server that can only run them as tasks.
func addTaskTools(s *mcp.Server) {
	for name, desc := range taskTools {
		s.AddTool(&mcp.Tool{Name: name, Description: "A task that " + desc + ".", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, &jsonrpc.Error{Code: -32021, Message: "Missing required client capability",
					Data: json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + taskExtension + `":{}}}}`)}
			})
	}
}

// handle answers req when it belongs to the extension; nil otherwise.
func (st *taskStore) handle(req *jsonrpc.Request) *jsonrpc.Response {
	if st == nil || !req.IsCall() {
		return nil
	}
	var p struct {
		Name           string                     `json:"name"`
		TaskID         string                     `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		Meta           struct {
			Caps struct {
				Extensions map[string]json.RawMessage `json:"extensions"`
			} `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	}
	json.Unmarshal(req.Params, &p)
	_, declared := p.Meta.Caps.Extensions[taskExtension]
	switch req.Method {
	case "tools/call":
		if _, ok := taskTools[p.Name]; !ok || !declared {
			return nil
		}
		return reply(req, st.create(p.Name), nil)
	case "tasks/get", "tasks/update", "tasks/cancel":
	default:
		return nil
	}
	if !declared {
		return &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: -32021, Message: "Missing required client capability"}}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.tasks[p.TaskID]
	if t == nil {
		return reply(req, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Failed to retrieve task: Task not found"})
	}
	switch req.Method {
	case "tasks/cancel":
		if t.status == "working" || t.status == "input_required" {
			t.status, t.message = "cancelled", "cancelled at the client's request"
			if st.cancelFile != "" {
				appendLine(st.cancelFile, "cancelled "+t.tool)
			}
		}
		return reply(req, map[string]any{"resultType": "complete"}, nil)
	case "tasks/update":
		var answer struct {
			Action  string            `json:"action"`
			Content map[string]string `json:"content"`
		}
		if raw, ok := p.InputResponses["name"]; ok && t.status == "input_required" {
			json.Unmarshal(raw, &answer)
			t.name = answer.Content["name"]
			if answer.Action != "accept" {
				t.name = "stranger"
			}
			t.status, t.message = "working", "greeting"
		}
		return reply(req, map[string]any{"resultType": "complete"}, nil)
	}
	return st.poll(req, t)
}

// nameMismatch checks a task method's Mcp-Name header over HTTP: SEP-2663
// asks for params.taskId there, encoded as SEP-2243 says when it is not
// plain ASCII. It returns the -32020 error for a mismatch, nil otherwise.
func (st *taskStore) nameMismatch(req *jsonrpc.Request, header string) *jsonrpc.Response {
	if st == nil || !strings.HasPrefix(req.Method, "tasks/") {
		return nil
	}
	var p struct {
		TaskID string `json:"taskId"`
	}
	json.Unmarshal(req.Params, &p)
	ok := header == p.TaskID
	for _, c := range []byte(p.TaskID) {
		ok = ok && c >= 0x20 && c <= 0x7e // a plain value must be plain ASCII
	}
	if enc, wrapped := strings.CutPrefix(header, "=?base64?"); wrapped && strings.HasSuffix(enc, "?=") {
		b, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(enc, "?="))
		ok = err == nil && string(b) == p.TaskID
	}
	if ok {
		return nil
	}
	return &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: -32020,
		Message: fmt.Sprintf("header mismatch: Mcp-Name header value %q does not match the taskId %q", header, p.TaskID)}}
}

func (st *taskStore) create(tool string) map[string]any {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.seq++
	id := fmt.Sprintf("task-%d", st.seq)
	switch tool {
	case "task-odd-id":
		id = "../../" + id + " it's ü"
	case "task-hostile-id":
		id = "\x1b]0;owned\a" + id
	}
	t := &serverTask{id: id, tool: tool, status: "working", message: "starting", created: time.Now().UTC()}
	st.tasks[t.id] = t
	if st.cancelFile != "" {
		appendLine(st.cancelFile, "started "+tool)
	}
	out := st.taskObject(t)
	out["resultType"] = "task"
	return out
}

// poll advances a task by one tasks/get and answers with its state.
func (st *taskStore) poll(req *jsonrpc.Request, t *serverTask) *jsonrpc.Response {
	if t.status == "working" || t.status == "input_required" {
		t.polls++
		switch t.tool {
		case "task-steps":
			t.message = fmt.Sprintf("step %d of 3", t.polls)
			if t.polls > 3 {
				t.status, t.message = "completed", "done"
			}
		case "task-fail":
			t.status, t.message = "failed", "Tool execution failed: "+taskFailMsg
		case "task-endless":
			t.message = "still working"
		case "task-expire":
			delete(st.tasks, t.id)
			return reply(req, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Failed to retrieve task: Task has expired"})
		case "task-ask":
			switch {
			case t.name != "":
				t.status, t.message = "completed", "greeted"
			default:
				t.status, t.message = "input_required", "waiting for a name"
			}
		}
	}
	out := st.taskObject(t)
	out["resultType"] = "complete"
	switch t.status {
	case "completed":
		text := "done after 3 steps"
		if t.tool == "task-ask" {
			text = "Hello, " + t.name + "!"
		}
		out["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
	case "failed":
		out["error"] = map[string]any{"code": -32603, "message": taskFailMsg}
	case "input_required":
		out["inputRequests"] = map[string]any{"name": map[string]any{
			"method": "elicitation/create",
			"params": map[string]any{"mode": "form", "message": "Whom should the task greet?",
				"requestedSchema": map[string]any{"type": "object",
					"properties": map[string]any{"name": map[string]any{"type": "string", "description": "a name"}},
					"required":   []string{"name"}}},
		}}
	}
	return reply(req, out, nil)
}

func (st *taskStore) taskObject(t *serverTask) map[string]any {
	ttl := any(60000)
	if t.tool == "task-expire" {
		ttl = taskExpiredMs
	}
	return map[string]any{
		"taskId": t.id, "status": t.status, "statusMessage": t.message,
		"createdAt": t.created.Format(time.RFC3339), "lastUpdatedAt": time.Now().UTC().Format(time.RFC3339),
		"ttlMs": ttl, "pollIntervalMs": taskPollMs,
	}
}

func reply(req *jsonrpc.Request, result any, rpcErr *jsonrpc.Error) *jsonrpc.Response {
	if rpcErr != nil {
		return &jsonrpc.Response{ID: req.ID, Error: rpcErr}
	}
	b, err := json.Marshal(result)
	if err != nil {
		return &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}}
	}
	return &jsonrpc.Response{ID: req.ID, Result: b}
}
