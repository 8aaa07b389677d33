package commands

import (
	"encoding/json"
	"net"
	"os"
	"reflect"
	"syscall"
	"testing"

	"github.com/mcpc-dev/mcpc/client/conn"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	clientstate "github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/tasks"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// echoTools are the fake server's tools: echo takes a string, add two
// numbers, and research runs as a task (the fake's RunTool says so).
func echoTools() []*mcp.Tool {
	return []*mcp.Tool{
		{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		{Name: "add", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}`)},
		{Name: "research", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}
}

// TestRunCall runs mcpc call over a fake session: what is printed, on
// which stream, with which exit status, and what reached the session.
func TestRunCall(t *testing.T) {
	task := &tasks.Task{ID: "t-1", Status: "completed",
		Raw: json.RawMessage(`{"taskId":"t-1","status":"working","createdAt":"2026-01-02T03:04:05Z"}`)}
	for _, tc := range []struct {
		name     string
		args     []string
		runs     map[string]fakeRun
		connErr  error
		code     int
		stdout   string
		stderr   string
		calls    []fakeCall // nil: no call may be made
		connects int
	}{{
		name: "a result as JSON",
		args: []string{"call", "--stdio", "fake", "echo", "text=hi"},
		runs: map[string]fakeRun{"echo": {run: &tasks.ToolRun{Result: result("hi", false)}}},
		// As the server wrote it: its key order, not Go's.
		stdout: "{\n  \"content\": [\n    {\n      \"type\": \"text\",\n      \"text\": \"hi\"\n    }\n  ],\n  \"isError\": false\n}\n",
		calls:  []fakeCall{{tool: "echo", args: map[string]any{"text": "hi"}}},
	}, {
		name:   "a result as text",
		args:   []string{"call", "--text", "--stdio", "fake", "echo", "text=hi"},
		runs:   map[string]fakeRun{"echo": {run: &tasks.ToolRun{Result: result("hi", false)}}},
		stdout: "hi\n",
		calls:  []fakeCall{{tool: "echo", args: map[string]any{"text": "hi"}}},
	}, {
		name:   "words typed by the schema, --query",
		args:   []string{"call", "-q", "content.0.text", "--stdio", "fake", "add", "a=2", "b:=3"},
		runs:   map[string]fakeRun{"add": {run: &tasks.ToolRun{Result: result("5", false)}}},
		stdout: "\"5\"\n",
		calls:  []fakeCall{{tool: "add", args: map[string]any{"a": json.Number("2"), "b": json.Number("3")}}},
	}, {
		name:   "isError: printed, exit 1",
		args:   []string{"call", "--text", "--stdio", "fake", "echo", "text=boom"},
		runs:   map[string]fakeRun{"echo": {run: &tasks.ToolRun{Result: result("it broke", true)}}},
		code:   1,
		stdout: "it broke\n",
		calls:  []fakeCall{{tool: "echo", args: map[string]any{"text": "boom"}}},
	}, {
		name: "a rejection: exit 7, its message and hint",
		args: []string{"call", "--stdio", "fake", "echo", "text=x"},
		runs: map[string]fakeRun{"echo": {err: fail.New(fail.Rejected, "check the arguments with: mcpc list fake tools echo",
			"server %q rejected the call of %q: invalid params", "fake", "echo")}},
		code:   7,
		stderr: "mcpc: error: server \"fake\" rejected the call of \"echo\": invalid params\nmcpc: hint: check the arguments with: mcpc list fake tools echo\n",
		calls:  []fakeCall{{tool: "echo", args: map[string]any{"text": "x"}}},
	}, {
		name: "a rejection under --json: the error object",
		args: []string{"call", "--json", "--stdio", "fake", "echo", "text=x"},
		runs: map[string]fakeRun{"echo": {err: fail.New(fail.Rejected, "", "server %q has no such thing", "fake")}},
		code: 7,
		stderr: "mcpc: error: server \"fake\" has no such thing\n" +
			`{"error":{"code":"rejected","exit":7,"hint":"","message":"server \"fake\" has no such thing"}}` + "\n",
		calls: []fakeCall{{tool: "echo", args: map[string]any{"text": "x"}}},
	}, {
		name:   "an unknown tool: refused before any call",
		args:   []string{"call", "--stdio", "fake", "ecko"},
		code:   7,
		stderr: "mcpc: error: server \"fake\" has no tool named \"ecko\"\nmcpc: hint: list the tools with: mcpc list fake\n",
	}, {
		name: "arguments that do not match the schema: exit 2, nothing called",
		args: []string{"call", "--stdio", "fake", "echo"},
		code: 2,
		stderr: "mcpc: error: arguments do not match the inputSchema of tool \"echo\": missing required argument \"text\"\n" +
			"mcpc: hint: fix the arguments, or pass --no-validate to let the server judge them\n",
	}, {
		name:   "a task followed to its end: the final result",
		args:   []string{"call", "--task", "--text", "--stdio", "fake", "research"},
		runs:   map[string]fakeRun{"research": {run: &tasks.ToolRun{Task: task, Result: result("found it", false)}, statuses: []string{"working", "completed"}}},
		stdout: "found it\n",
		calls:  []fakeCall{{tool: "research", args: map[string]any{}, opts: tasks.Options{Ask: true}}},
	}, {
		name: "a task that failed with a result: printed, the task's code",
		args: []string{"call", "--text", "--stdio", "fake", "research"},
		runs: map[string]fakeRun{"research": {run: &tasks.ToolRun{Task: task, Result: result("half done", true)},
			err: fail.New(fail.TaskFailed, "", "the task t-1 failed on server %q", "fake")}},
		code:   1,
		stdout: "half done\n",
		stderr: "mcpc: error: the task t-1 failed on server \"fake\"\n",
		calls:  []fakeCall{{tool: "research", args: map[string]any{}}},
	}, {
		name:   "a detached task: its id on stdout, how to reach it on stderr",
		args:   []string{"call", "--detach", "--text", "https://mcp.example.com/mcp", "research"},
		runs:   map[string]fakeRun{"research": {run: &tasks.ToolRun{Task: task, Record: &clientstate.TaskRecord{TaskID: "t-1"}}}},
		stdout: "t-1\n",
		stderr: "mcpc: note: task t-1 runs on server \"https://mcp.example.com/mcp\"; follow it with: mcpc task result https://mcp.example.com/mcp t-1\n",
		calls:  []fakeCall{{tool: "research", args: map[string]any{}, opts: tasks.Options{Detach: true}}},
	}, {
		name:   "a detached task under --json: the task object",
		args:   []string{"call", "--detach", "--json", "https://mcp.example.com/mcp", "research"},
		runs:   map[string]fakeRun{"research": {run: &tasks.ToolRun{Task: task, Record: &clientstate.TaskRecord{TaskID: "t-1"}}}},
		stdout: "{\n  \"taskId\": \"t-1\",\n  \"status\": \"working\",\n  \"createdAt\": \"2026-01-02T03:04:05Z\"\n}\n",
		stderr: "mcpc: note: task t-1 runs on server \"https://mcp.example.com/mcp\"; follow it with: mcpc task result https://mcp.example.com/mcp t-1\n",
		calls:  []fakeCall{{tool: "research", args: map[string]any{}, opts: tasks.Options{Detach: true}}},
	}, {
		name: "--detach on stdio: refused before connecting",
		args: []string{"call", "--detach", "--stdio", "fake", "research"},
		code: 2,
		stderr: "mcpc: error: --detach needs an HTTP server: a stdio server ends with the invocation that starts it, and its tasks with it\n" +
			"mcpc: hint: run it without --detach, or reach the server over HTTP\n",
		connects: -1,
	}, {
		// The holder closes its invocations' sockets as its server dies: a
		// call that writes to one then fails with EPIPE, the socket's, not
		// stdout's (session_logs.txtar saw exit 0 and nothing printed).
		name: "a session that ended mid-call, its socket's EPIPE in the chain: exit 5, not stdout's reader gone",
		args: []string{"call", "--stdio", "fake", "echo", "text=x"},
		runs: map[string]fakeRun{"echo": {err: conn.SessionEnded("counter", "server killed by signal killed",
			&net.OpError{Op: "write", Net: "unix", Err: os.NewSyscallError("write", syscall.EPIPE)})}},
		code: 5,
		stderr: "mcpc: error: session counter ended: server killed by signal killed\n" +
			"mcpc: hint: what the server held is lost; start it again with 'mcpc session start counter', or forget it with 'mcpc session stop counter'\n",
		calls: []fakeCall{{tool: "echo", args: map[string]any{"text": "x"}}},
	}, {
		name:    "the connect fails: its code, nothing called",
		args:    []string{"call", "--stdio", "fake", "echo", "text=x"},
		connErr: fail.New(fail.ServerExited, "run it by hand to see why", "server %q exited before answering", "fake"),
		code:    5,
		stderr:  "mcpc: error: server \"fake\" exited before answering\nmcpc: hint: run it by hand to see why\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeServer{tools: echoTools(), runs: tc.runs, connectErr: tc.connErr}
			code, stdout, stderr := runFake(t, f, "", tc.args...)
			if code != tc.code || stdout != tc.stdout || stderr != tc.stderr {
				t.Errorf("exit %d, want %d\nstdout %q\nwant   %q\nstderr %q\nwant   %q", code, tc.code, stdout, tc.stdout, stderr, tc.stderr)
			}
			checkCalls(t, f, tc.calls)
			wantConnects := 1
			if tc.connects < 0 {
				wantConnects = 0
			}
			if len(f.connects) != wantConnects {
				t.Errorf("%d connects, want %d", len(f.connects), wantConnects)
			}
			if tc.connErr == nil && wantConnects == 1 && f.closed != 1 {
				t.Errorf("the session was closed %d times, want once", f.closed)
			}
		})
	}
}

// checkCalls compares the tool calls made with want, ignoring the Status
// callback (a function).
func checkCalls(t *testing.T, f *fakeServer, want []fakeCall) {
	t.Helper()
	if len(f.calls) != len(want) {
		t.Fatalf("calls %+v, want %+v", f.calls, want)
	}
	for i, c := range f.calls {
		w := want[i]
		c.opts.Status = nil
		if c.tool != w.tool || !reflect.DeepEqual(c.args, w.args) || !reflect.DeepEqual(c.opts, w.opts) {
			t.Errorf("call %d: %+v, want %+v", i, c, w)
		}
	}
}
