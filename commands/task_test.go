package commands

import (
	"encoding/json"
	"testing"

	clientstate "github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/tasks"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// TestRunTask runs mcpc task get/result/cancel/list over a fake session
// opened for detached tasks.
func TestRunTask(t *testing.T) {
	const srv = "https://mcp.example.com/mcp"
	working := fakeTask{task: &tasks.Task{ID: "t-1", Status: "working", StatusMessage: "step 2\nof 3",
		Raw: json.RawMessage(`{"taskId":"t-1","status":"working","statusMessage":"step 2\nof 3"}`)}}
	done := fakeTask{task: &tasks.Task{ID: "t-1", Status: "completed", Raw: json.RawMessage(`{"taskId":"t-1","status":"completed"}`)},
		result: result("the answer", false)}
	failed := fakeTask{task: &tasks.Task{ID: "t-1", Status: "failed"},
		result: result("partial", true), err: fail.New(fail.TaskFailed, "", "the task t-1 failed on server at %s", srv)}
	lost := fakeTask{task: &tasks.Task{ID: "t-1", Status: "working"},
		err: fail.New(fail.TaskGone, "", "the task t-1 is no longer known to server at %s", srv)}
	for _, tc := range []struct {
		name   string
		args   []string
		f      fakeServer
		code   int
		stdout string
		stderr string
		follow bool // FollowTask was called, with Keep
	}{{
		name:   "get: id, status and message on one line",
		args:   []string{"task", "get", "--text", srv, "t-1"},
		f:      fakeServer{tasks: map[string]fakeTask{"t-1": working}},
		stdout: "t-1  working  step 2 of 3\n",
	}, {
		name:   "get --json: the task as the server sent it",
		args:   []string{"task", "get", "--json", srv, "t-1"},
		f:      fakeServer{tasks: map[string]fakeTask{"t-1": working}},
		stdout: "{\n  \"taskId\": \"t-1\",\n  \"status\": \"working\",\n  \"statusMessage\": \"step 2\\nof 3\"\n}\n",
	}, {
		name:   "get of a task the server does not know",
		args:   []string{"task", "get", srv, "t-9"},
		f:      fakeServer{tasks: map[string]fakeTask{"t-1": working}},
		code:   7,
		stderr: "mcpc: error: no task t-9\n",
	}, {
		name:   "result: followed to its end, printed as mcpc call would",
		args:   []string{"task", "result", "--text", srv, "t-1"},
		f:      fakeServer{tasks: map[string]fakeTask{"t-1": done}},
		stdout: "the answer\n",
		follow: true,
	}, {
		name:   "result of a task that failed with a result: printed, exit 1",
		args:   []string{"task", "result", "--text", srv, "t-1"},
		f:      fakeServer{tasks: map[string]fakeTask{"t-1": failed}},
		code:   1,
		stdout: "partial\n",
		stderr: "mcpc: error: the task t-1 failed on server at " + srv + "\n",
		follow: true,
	}, {
		name:   "result of a task lost on the way: its error, nothing printed",
		args:   []string{"task", "result", srv, "t-1"},
		f:      fakeServer{tasks: map[string]fakeTask{"t-1": lost}},
		code:   7,
		stderr: "mcpc: error: the task t-1 is no longer known to server at " + srv + "\n",
		follow: true,
	}, {
		name:   "cancel on 2025-11-25: the task as the server now has it",
		args:   []string{"task", "cancel", "--text", srv, "t-1"},
		f:      fakeServer{cancels: map[string]json.RawMessage{"t-1": json.RawMessage(`{"taskId":"t-1","status":"cancelled"}`)}},
		stdout: "t-1  cancelled\n",
	}, {
		name:   "cancel on 2026-07-28: an empty acknowledgement is a request, not a result",
		args:   []string{"task", "cancel", "--text", srv, "t-1"},
		f:      fakeServer{cancels: map[string]json.RawMessage{"t-1": json.RawMessage(`{}`)}},
		stdout: "t-1 cancel requested\n",
	}, {
		name:   "cancel --json: the acknowledgement as sent",
		args:   []string{"task", "cancel", "--json", srv, "t-1"},
		f:      fakeServer{cancels: map[string]json.RawMessage{"t-1": json.RawMessage(`{}`)}},
		stdout: "{}\n",
	}, {
		name: "list on 2026-07-28: each remembered task's status; one gone is a note",
		args: []string{"task", "list", "--text", srv},
		f: fakeServer{modern: true, records: []*clientstate.TaskRecord{{TaskID: "t-1"}, {TaskID: "t-2"}},
			tasks: map[string]fakeTask{"t-1": working}},
		stdout: "t-1  working  step 2 of 3\n",
		stderr: "mcpc: note: no task t-2\n",
	}, {
		name: "list on 2025-11-25: tasks/list in each remembered session, as JSON",
		args: []string{"task", "list", "--json", srv},
		f: fakeServer{sessions: []string{"s-2", "s-1", "s-0"}, sessionTasks: map[string]json.RawMessage{
			"s-2": json.RawMessage(`{"tasks":[{"taskId":"t-3","status":"working"}]}`),
			"s-1": json.RawMessage(`{"tasks":[{"taskId":"t-1","status":"completed"},{"taskId":"t-2","status":"failed"}]}`),
		}},
		stdout: "{\n  \"tasks\": [\n    {\n      \"taskId\": \"t-3\",\n      \"status\": \"working\"\n    },\n" +
			"    {\n      \"taskId\": \"t-1\",\n      \"status\": \"completed\"\n    },\n" +
			"    {\n      \"taskId\": \"t-2\",\n      \"status\": \"failed\"\n    }\n  ]\n}\n",
		stderr: "mcpc: note: session s-0 is gone\n",
	}, {
		name: "the server unreachable: its error",
		args: []string{"task", "get", srv, "t-1"},
		f: fakeServer{connectErr: fail.New(fail.TaskGone, "mcpc task list SERVER lists the tasks mcpc remembers",
			"mcpc remembers no task t-1 on server at %s", srv)},
		code:   7,
		stderr: "mcpc: error: mcpc remembers no task t-1 on server at " + srv + "\nmcpc: hint: mcpc task list SERVER lists the tasks mcpc remembers\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := &tc.f
			code, stdout, stderr := runFake(t, f, "", tc.args...)
			if code != tc.code || stdout != tc.stdout || stderr != tc.stderr {
				t.Errorf("exit %d, want %d\nstdout %q\nwant   %q\nstderr %q\nwant   %q", code, tc.code, stdout, tc.stdout, stderr, tc.stderr)
			}
			if len(f.connects) != 1 {
				t.Errorf("%d connects, want 1", len(f.connects))
			}
			// Every invocation that reached the server ends the 2025
			// sessions it has settled, whatever the outcome.
			wantEnded := 1
			if f.connectErr != nil {
				wantEnded = 0
			}
			if f.ended != wantEnded {
				t.Errorf("EndSettledHTTPSessions called %d times, want %d", f.ended, wantEnded)
			}
			followed := len(f.calls) == 1 && f.calls[0].tool == "follow t-1" && f.calls[0].opts.Keep
			if followed != tc.follow || len(f.calls) > 1 {
				t.Errorf("follows %+v, want one with Keep: %v", f.calls, tc.follow)
			}
		})
	}
}

// mcpc task needs an HTTP server: a stdio one is refused before anything
// is opened.
func TestRunTaskStdio(t *testing.T) {
	f := &fakeServer{}
	code, stdout, stderr := runFake(t, f, "", "task", "get", "--stdio", "fake", "t-1")
	want := "mcpc: error: mcpc task needs an HTTP server: a stdio server's tasks end with the invocation that starts them\n" +
		"mcpc: hint: run the call without --detach to wait for its result\n"
	if code != 2 || stdout != "" || stderr != want || len(f.connects) != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q, %d connects; want 2, %q, none", code, stdout, stderr, len(f.connects), want)
	}
}
