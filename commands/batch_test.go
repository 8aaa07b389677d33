package commands

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpc-dev/mcpc/client/tasks"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// TestRunBatch runs mcpc call --batch over a fake session: one line of
// JSON per call, a failed call's error object on its line, the worst
// status as the exit code, and a bad file refused before anything runs.
func TestRunBatch(t *testing.T) {
	ok := func(text string) fakeRun { return fakeRun{run: &tasks.ToolRun{Result: result(text, false)}} }
	rejected := fakeRun{err: fail.New(fail.Rejected, "check the arguments", "server %q rejected the call: invalid params", "fake")}
	for _, tc := range []struct {
		name   string
		stdin  string
		runs   map[string]fakeRun
		code   int
		stdout string
		stderr string
		calls  []string // the tools called, in order; nil: no connect either
	}{{
		name:  "several lines over one connection",
		stdin: `{"tool":"echo","arguments":{"text":"a"}}` + "\n\n" + `{"tool":"add","arguments":{"a":1,"b":2}}` + "\n",
		runs:  map[string]fakeRun{"echo": ok("a"), "add": ok("3")},
		stdout: `{"content":[{"type":"text","text":"a"}],"isError":false}` + "\n" +
			`{"content":[{"type":"text","text":"3"}],"isError":false}` + "\n",
		calls: []string{"echo", "add"},
	}, {
		name:  "a failing line: its error object, the others run, its code",
		stdin: `{"tool":"echo","arguments":{"text":"a"}}` + "\n" + `{"tool":"add"}` + "\n" + `{"tool":"echo","arguments":{"text":"b"}}` + "\n",
		runs:  map[string]fakeRun{"echo": ok("a"), "add": rejected},
		code:  7,
		stdout: `{"content":[{"type":"text","text":"a"}],"isError":false}` + "\n" +
			`{"error":{"code":"rejected","exit":7,"hint":"check the arguments","message":"server \"fake\" rejected the call: invalid params"}}` + "\n" +
			`{"content":[{"type":"text","text":"a"}],"isError":false}` + "\n",
		stderr: "mcpc: error: some calls failed (see their lines on stdout)\nmcpc: hint: check the arguments\n",
		calls:  []string{"echo", "add", "echo"},
	}, {
		name:  "an unknown tool on a line: refused there, never called",
		stdin: `{"tool":"ecko"}` + "\n" + `{"tool":"add"}` + "\n",
		runs:  map[string]fakeRun{"add": ok("0")},
		code:  7,
		stdout: `{"error":{"code":"rejected","exit":7,"hint":"list the tools with: mcpc list fake","message":"server \"fake\" has no tool named \"ecko\""}}` + "\n" +
			`{"content":[{"type":"text","text":"0"}],"isError":false}` + "\n",
		stderr: "mcpc: error: some calls failed (see their lines on stdout)\nmcpc: hint: list the tools with: mcpc list fake\n",
		calls:  []string{"add"},
	}, {
		name:  "isError: the result on its line, exit 1 and nothing on stderr",
		stdin: `{"tool":"echo","arguments":{"text":"a"}}` + "\n" + `{"tool":"add"}` + "\n",
		runs:  map[string]fakeRun{"echo": ok("a"), "add": {run: &tasks.ToolRun{Result: result("no numbers", true)}}},
		code:  1,
		stdout: `{"content":[{"type":"text","text":"a"}],"isError":false}` + "\n" +
			`{"content":[{"type":"text","text":"no numbers"}],"isError":true}` + "\n",
		calls: []string{"echo", "add"},
	}, {
		name:  "the worst status wins: a rejection over isError",
		stdin: `{"tool":"add"}` + "\n" + `{"tool":"echo","arguments":{"text":"a"}}` + "\n",
		runs:  map[string]fakeRun{"add": {run: &tasks.ToolRun{Result: result("no", true)}}, "echo": rejected},
		code:  7,
		stdout: `{"content":[{"type":"text","text":"no"}],"isError":true}` + "\n" +
			`{"error":{"code":"rejected","exit":7,"hint":"check the arguments","message":"server \"fake\" rejected the call: invalid params"}}` + "\n",
		stderr: "mcpc: error: some calls failed (see their lines on stdout)\nmcpc: hint: check the arguments\n",
		calls:  []string{"add", "echo"},
	}, {
		name:  "the connection gone: the batch stops there",
		stdin: `{"tool":"echo","arguments":{"text":"a"}}` + "\n" + `{"tool":"add"}` + "\n" + `{"tool":"echo","arguments":{"text":"b"}}` + "\n",
		runs: map[string]fakeRun{"echo": ok("a"), "add": {err: fail.New(fail.ServerExited, "run it by hand to see why",
			"server %q exited unexpectedly", "fake")}},
		code: 5,
		stdout: `{"content":[{"type":"text","text":"a"}],"isError":false}` + "\n" +
			`{"error":{"code":"server_exited","exit":5,"hint":"run it by hand to see why","message":"server \"fake\" exited unexpectedly"}}` + "\n",
		// The reason the batch stopped, not "some calls failed".
		stderr: "mcpc: error: server \"fake\" exited unexpectedly\nmcpc: hint: run it by hand to see why\n",
		calls:  []string{"echo", "add"},
	}, {
		name:   "a bad line: exit 2 naming it, nothing started",
		stdin:  `{"tool":"echo","arguments":{"text":"a"}}` + "\n" + `{"tool":"add","args":{}}` + "\n",
		code:   2,
		stderr: "mcpc: error: stdin:2: json: unknown field \"args\"\nmcpc: hint: each line is {\"tool\": \"NAME\", \"arguments\": {...}}\n",
	}, {
		name:   "a line without a tool",
		stdin:  `{"arguments":{}}` + "\n",
		code:   2,
		stderr: "mcpc: error: stdin:1: no \"tool\"\nmcpc: hint: each line is {\"tool\": \"NAME\", \"arguments\": {...}}\n",
	}, {
		name:   "two values on a line",
		stdin:  `{"tool":"echo"} {"tool":"add"}` + "\n",
		code:   2,
		stderr: "mcpc: error: stdin:1: more than one JSON value\nmcpc: hint: each line is {\"tool\": \"NAME\", \"arguments\": {...}}\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeServer{tools: echoTools(), runs: tc.runs}
			code, stdout, stderr := runFake(t, f, tc.stdin, "call", "--stdio", "fake", "--batch", "-")
			if code != tc.code || stdout != tc.stdout || stderr != tc.stderr {
				t.Errorf("exit %d, want %d\nstdout %q\nwant   %q\nstderr %q\nwant   %q", code, tc.code, stdout, tc.stdout, stderr, tc.stderr)
			}
			var called []string
			for _, c := range f.calls {
				called = append(called, c.tool)
				if c.opts.Ask || c.opts.Detach {
					t.Errorf("call of %s asked for a task: %+v", c.tool, c.opts)
				}
			}
			if !slices.Equal(called, tc.calls) {
				t.Errorf("calls %q, want %q", called, tc.calls)
			}
			if wantConnects := min(len(tc.calls), 1); len(f.connects) != wantConnects {
				t.Errorf("%d connects, want %d", len(f.connects), wantConnects)
			}
		})
	}
}

// A call's arguments reach the session as the line gave them, numbers
// as written (json.Number), none as an empty object.
func TestRunBatchArguments(t *testing.T) {
	f := &fakeServer{tools: echoTools(), runs: map[string]fakeRun{"add": {run: &tasks.ToolRun{Result: result("3", false)}}}}
	code, _, stderr := runFake(t, f, `{"tool":"add","arguments":{"a":1,"b":2.5}}`+"\n"+`{"tool":"add"}`+"\n", "call", "--stdio", "fake", "--batch", "-")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	checkCalls(t, f, []fakeCall{
		{tool: "add", args: map[string]any{"a": json.Number("1"), "b": json.Number("2.5")}},
		{tool: "add", args: map[string]any{}},
	})
}
