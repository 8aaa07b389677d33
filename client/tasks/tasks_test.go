package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// fakeSession is a Session whose task requests are answered by request;
// everything else is a fixed value.
type fakeSession struct {
	label   string
	modern  bool
	store   *state.Tasks
	scope   Scope
	request func(ctx context.Context, method, id string, extra map[string]any) (json.RawMessage, error)
	end     func(sid string) error

	mu      sync.Mutex
	methods []string // the task methods sent, in order
	ended   []string // the sessions ended
}

func (f *fakeSession) Label() string                     { return f.label }
func (f *fakeSession) Modern() bool                      { return f.modern }
func (f *fakeSession) TaskSupport(string) (bool, string) { return true, "optional" }
func (f *fakeSession) CallTool(context.Context, string, map[string]any, bool) (json.RawMessage, error) {
	return nil, errors.New("no tools here")
}
func (f *fakeSession) Request(ctx context.Context, method, id string, extra map[string]any) (json.RawMessage, error) {
	f.mu.Lock()
	f.methods = append(f.methods, method)
	f.mu.Unlock()
	return f.request(ctx, method, id, extra)
}
func (f *fakeSession) Explain(_ context.Context, what string, err error) error {
	return fail.Wrap(fail.Connection, err, "", "cannot %s %s", what, f.label)
}
func (f *fakeSession) Scrub(err error) string { return err.Error() }
func (f *fakeSession) Answer(context.Context, mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	return nil, errors.New("no answers here")
}
func (f *fakeSession) Unanswered() error     { return nil }
func (f *fakeSession) Note(string)           {}
func (f *fakeSession) Trace(string)          {}
func (f *fakeSession) Records() *state.Tasks { return f.store }
func (f *fakeSession) Hold() Scope           { return f.scope }
func (f *fakeSession) EndHTTPSession(_ context.Context, sid string) error {
	f.ended = append(f.ended, sid)
	if f.end != nil {
		return f.end(sid)
	}
	return nil
}

// silent answers nothing until the request's context ends.
func silent(ctx context.Context, _, _ string, _ map[string]any) (json.RawMessage, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestParseTaskBothEras(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		id   string
		poll time.Duration
		err  string
	}{
		{`{"taskId":"a","status":"working","pollInterval":1000,"ttl":300000}`, "a", time.Second, ""},
		{`{"taskId":"b","status":"input_required","pollIntervalMs":50,"ttlMs":null}`, "b", 50 * time.Millisecond, ""},
		{`{"taskId":"c","status":"completed"}`, "c", 0, ""},
		{`{"taskId":"h","status":"working","pollIntervalMs":1e13}`, "h", 24 * time.Hour, ""},
		{`{"taskId":7,"status":"working"}`, "", 0, "the task has no taskId"},
		{`{"taskId":"d","status":"paused"}`, "", 0, `the task has an unknown status "paused"`},
		{`[1]`, "", 0, "the task is not a JSON object"},
		{`{"taskId":"e\u001b[2J","status":"working"}`, "", 0, `the task id "e\x1b[2J" has control characters or is not UTF-8`},
		{`{"taskId":"f\u202e","status":"working"}`, "", 0, `the task id "f\u202e" has control characters or is not UTF-8`},
		{`{"taskId":"../g h ü","status":"working"}`, "../g h ü", 0, ""},
	} {
		got, err := parseTask(json.RawMessage(tc.raw))
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("parseTask(%s) error = %v, want %q", tc.raw, err, tc.err)
			}
			continue
		}
		if err != nil || got.ID != tc.id || got.PollInterval != tc.poll || string(got.Raw) != tc.raw {
			t.Errorf("parseTask(%s) = %+v, %v", tc.raw, got, err)
		}
	}
}

func TestPollPauseIsBounded(t *testing.T) {
	for in, want := range map[time.Duration]time.Duration{
		0:                      defaultPoll,
		10 * time.Millisecond:  minPoll,
		time.Second:            time.Second,
		time.Hour:              maxPoll,
		-5 * time.Millisecond:  defaultPoll,
		250 * time.Millisecond: 250 * time.Millisecond,
	} {
		if got := pollPause(in); got != want {
			t.Errorf("pollPause(%v) = %v, want %v", in, got, want)
		}
	}
}

// A server that never answers a poll: each task request is bounded, and a
// followed task is cancelled.
func TestTaskRequestsAreBounded(t *testing.T) {
	defer func(d time.Duration) { taskRequestBound = d }(taskRequestBound)
	taskRequestBound = 200 * time.Millisecond
	cancelled := make(chan string, 1)
	s := &fakeSession{label: `server "slow"`, modern: true, request: func(ctx context.Context, method, id string, extra map[string]any) (json.RawMessage, error) {
		if method == "tasks/cancel" {
			cancelled <- id
			return json.RawMessage(`{}`), nil
		}
		return silent(ctx, method, id, extra)
	}}
	_, err := Get(context.Background(), s, "t1")
	if f := fail.As(err); f == nil || f.Code != fail.Timeout || f.Msg != `server "slow" did not answer tasks/get for the task t1 within 200ms` {
		t.Fatalf("Get: %#v", err)
	}
	_, err = Follow(context.Background(), s, &Task{ID: "t2", Status: "working"}, Options{})
	if f := fail.As(err); f == nil || f.Code != fail.Timeout || f.Msg != `server "slow" did not answer tasks/get within 200ms; cancelled the task t2` {
		t.Fatalf("Follow: %#v", err)
	}
	if id := <-cancelled; id != "t2" {
		t.Fatalf("cancelled %q", id)
	}
}

// --detach on a tool whose taskSupport is "optional" asks for a task, as
// --task does; "forbidden" or an absent field never does.
func TestLegacyAsTask(t *testing.T) {
	for _, tc := range []struct {
		toolsCall bool
		support   string
		o         Options
		want      bool
	}{
		{true, "required", Options{}, true},
		{true, "optional", Options{}, false},
		{true, "optional", Options{Ask: true}, true},
		{true, "optional", Options{Detach: true}, true},
		{true, "forbidden", Options{Detach: true}, false},
		{true, "", Options{Ask: true}, false},
		{false, "required", Options{Detach: true}, false},
	} {
		if got := legacyAsTask(tc.toolsCall, tc.support, tc.o); got != tc.want {
			t.Errorf("legacyAsTask(%v, %q, %+v) = %v", tc.toolsCall, tc.support, tc.o, got)
		}
	}
}

// A failed 2026 task is reported with what it carries: the error's message
// and code, else its status message; no made-up code.
func TestFailedTaskMessage(t *testing.T) {
	s := &fakeSession{label: `server "x"`, modern: true}
	for raw, want := range map[string]string{
		`{"taskId":"t","status":"failed","error":{"code":-32603,"message":"gone"}}`: `the task t failed on server "x": gone (JSON-RPC error -32603)`,
		`{"taskId":"t","status":"failed","statusMessage":"boom"}`:                   `the task t failed on server "x": boom`,
		`{"taskId":"t","status":"failed"}`:                                          `the task t failed on server "x"`,
	} {
		task, err := parseTask(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		_, err = taskOutcome(context.Background(), s, task)
		if f := fail.As(err); f == nil || f.Code != fail.TaskFailed || f.Msg != want {
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
}

// A 2025 server that reports a task completed, then holds tasks/result
// (which must answer at once for an ended task): bounded, and the ended
// task is not cancelled.
func TestEndedTaskResultIsBounded(t *testing.T) {
	defer func(d time.Duration) { taskRequestBound = d }(taskRequestBound)
	taskRequestBound = 200 * time.Millisecond
	s := &fakeSession{label: `server "x"`, request: silent}
	_, err := Follow(context.Background(), s, &Task{ID: "t1", Status: "completed"}, Options{})
	if f := fail.As(err); f == nil || f.Code != fail.Timeout || f.Msg != `server "x" reported the task t1 completed, but did not answer tasks/result within 200ms` {
		t.Fatalf("Follow: %v", err)
	}
	if len(s.methods) != 1 || s.methods[0] != "tasks/result" {
		t.Fatalf("requests = %v", s.methods)
	}
}

// -32602 to tasks/cancel is a refusal (the task may have ended): not
// remembered as cancelled by the user. To tasks/get it is a task the
// server no longer knows, which settles its record.
func TestCancelRefused(t *testing.T) {
	store := (&state.Memo{EraDir: filepath.Join(t.TempDir(), "eras")}).Tasks("k")
	if err := store.Put(&state.TaskRecord{TaskID: "t1", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	s := &fakeSession{label: `server "x"`, store: store, request: func(context.Context, string, string, map[string]any) (json.RawMessage, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "task t1 is completed"}
	}}
	_, err := Cancel(context.Background(), s, "t1")
	if f := fail.As(err); f == nil || f.Code != fail.TaskGone || f.Hint != "mcpc task get shows its status" ||
		f.Msg != `server "x" refused to cancel the task t1: task t1 is completed` {
		t.Fatalf("Cancel: %#v", err)
	}
	if r := store.Get("t1"); r == nil || r.Cancelled || r.Settled {
		t.Fatalf("after a refused cancel: %+v", r)
	}
	_, err = Get(context.Background(), s, "t1")
	if f := fail.As(err); f == nil || f.Code != fail.TaskGone || f.Msg != `server "x" no longer knows the task t1: task t1 is completed` {
		t.Fatalf("Get: %#v", err)
	}
	if r := store.Get("t1"); r == nil || r.Cancelled || !r.Settled {
		t.Fatalf("after tasks/get: %+v", r)
	}
}

// A detached task that cannot be recorded (the state directory is not
// writable) is a config failure that names the task and where.
func TestRememberTaskUnwritable(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tasks"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := &fakeSession{modern: true, scope: Scope{ProtocolVersion: "2026-07-28"}, store: (&state.Memo{EraDir: filepath.Join(dir, "eras")}).Tasks("k")}
	_, err := rememberTask(s, &Task{ID: "t-1"}, "slow")
	fe := fail.As(err)
	want := fmt.Sprintf("cannot remember the task t-1 in %s", s.store.Dir)
	if fe == nil || fe.Code != fail.Config || fe.Code.Exit() != fail.ExitConfig || !strings.HasPrefix(fe.Msg, want+": ") || fe.Hint != "check that the state directory is writable" {
		t.Fatalf("got %#v, want a config failure %q", fe, want)
	}
}

// A kept 2025 session is ended once each of its tasks is settled, and its
// records go, but a task the user cancelled keeps its record without the
// session; a session with a task still running is kept. A session that
// cannot be ended keeps its records.
func TestEndSettledHTTPSessions(t *testing.T) {
	store := (&state.Memo{EraDir: filepath.Join(t.TempDir(), "eras")}).Tasks("k")
	now := time.Now()
	for _, r := range []*state.TaskRecord{
		{TaskID: "a1", SessionID: "s-a", Settled: true, At: now},
		{TaskID: "a2", SessionID: "s-a", Settled: true, Cancelled: true, At: now.Add(time.Second)},
		{TaskID: "b1", SessionID: "s-b", Settled: true, At: now.Add(2 * time.Second)},
		{TaskID: "b2", SessionID: "s-b", At: now.Add(3 * time.Second)},
	} {
		if err := store.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	if got := HTTPSessions(store.List()); !slices.Equal(got, []string{"s-b", "s-a"}) {
		t.Fatalf("Sessions = %v", got)
	}
	s := &fakeSession{store: store}
	EndSettledHTTPSessions(context.Background(), s)
	if !slices.Equal(s.ended, []string{"s-a"}) {
		t.Fatalf("ended %v", s.ended)
	}
	var left []string
	for _, r := range store.List() {
		left = append(left, r.TaskID+"@"+r.SessionID)
	}
	if !slices.Equal(left, []string{"a2@", "b1@s-b", "b2@s-b"}) {
		t.Fatalf("records left: %v", left)
	}

	store.Settle("b2")
	s = &fakeSession{store: store, end: func(string) error { return errors.New("HTTP 500") }}
	EndSettledHTTPSessions(context.Background(), s)
	if !slices.Equal(s.ended, []string{"s-b"}) || len(store.List()) != 3 {
		t.Fatalf("ended %v, records %d", s.ended, len(store.List()))
	}
}

// bigTask is a 2026-07-28 task object, completed, with a result of about
// 4 MB inline.
func bigTask(id string) []byte {
	res, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.Repeat("x", 4<<20)}}})
	return []byte(`{"taskId":"` + id + `","status":"completed","result":` + string(res) + `}`)
}

// A task, its result and a tasks/list page are read where they lie:
// gjson.ParseBytes copied the task whole, gjson.GetBytes the result and
// each page's tasks (and json.RawMessage the result again).
func TestTasksReadInPlace(t *testing.T) {
	raw := bigTask("t")
	s := &fakeSession{label: `server "x"`, modern: true}
	var task *Task
	var err error
	bounded := func(what string, n uint64, size int) {
		t.Helper()
		t.Logf("%s, %d bytes: %d bytes allocated", what, size, n)
		if limit := uint64(size / 10); n > limit {
			t.Errorf("%s of %d bytes allocated %d bytes, want at most %d", what, size, n, limit)
		}
	}
	bounded("parseTask", memtest.Allocated(func() { task, err = parseTask(raw) }), len(raw))
	if err != nil || task.ID != "t" || task.Status != "completed" {
		t.Fatalf("parseTask = %+v, %v", task, err)
	}
	var res json.RawMessage
	bounded("taskOutcome", memtest.Allocated(func() { res, err = taskOutcome(context.Background(), s, task) }), len(raw))
	if err != nil || !strings.HasPrefix(string(res), `{"content":[{"text":"xxx`) || !strings.HasSuffix(string(raw), string(res)+"}") {
		t.Errorf("taskOutcome = %.40s…, %v", res, err)
	}
	page := []byte(`{"tasks":[` + string(bigTask("a")) + `,` + string(bigTask("b")) + `]}`)
	s.request = func(context.Context, string, string, map[string]any) (json.RawMessage, error) { return page, nil }
	var pages []json.RawMessage
	bounded("List", memtest.Allocated(func() { pages, err = List(context.Background(), s, 64<<20) }), len(page))
	if err != nil || len(pages) != 1 || &pages[0][0] != &page[0] {
		t.Errorf("List = %d pages, %v", len(pages), err)
	}
}
