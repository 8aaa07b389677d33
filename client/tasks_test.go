package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
)

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

// The 2025 task field goes on the next tools/call only, once.
func TestAugmentAddsTaskFieldOnce(t *testing.T) {
	var tw taskWire
	id, _ := jsonrpc.MakeID(float64(1))
	req := &jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(`{"name":"x","arguments":{}}`)}
	tw.askTask(json.RawMessage(`{}`))
	tw.augment(&jsonrpc.Request{ID: id, Method: "tools/list"})
	tw.augment(req)
	if string(req.Params) != `{"arguments":{},"name":"x","task":{}}` {
		t.Fatalf("params = %s", req.Params)
	}
	again := &jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(`{"name":"x"}`)}
	tw.augment(again)
	if string(again.Params) != `{"name":"x"}` {
		t.Fatalf("second call changed: %s", again.Params)
	}
}

// mcpc's own requests get their answers; the SDK never sees them; a lost
// connection ends the wait.
func TestTaskWireClaimsOwnAnswers(t *testing.T) {
	var tw taskWire
	sent := make(chan *jsonrpc.Request, 1)
	tw.setWriter(func(_ context.Context, m jsonrpc.Message) error {
		sent <- m.(*jsonrpc.Request)
		return nil
	})
	go func() {
		req := <-sent
		sdk, _ := jsonrpc.MakeID(float64(3))
		if tw.claim(&jsonrpc.Response{ID: sdk, Result: json.RawMessage(`{}`)}) {
			t.Error("claimed an SDK response")
		}
		tw.claim(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"taskId":"t"}`)})
	}()
	res, err := tw.call(context.Background(), "tasks/get", json.RawMessage(`{"taskId":"t"}`))
	if err != nil || string(res) != `{"taskId":"t"}` {
		t.Fatalf("call = %s, %v", res, err)
	}
	go func() { <-sent; tw.lost() }()
	if _, err := tw.call(context.Background(), "tasks/get", nil); !errors.Is(err, errConnectionLost) {
		t.Fatalf("after the connection was lost: %v", err)
	}
}

// Mcp-Name carries a task id as SEP-2243 encodes header values.
func TestHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"task-1":          "task-1",
		"../a b":          "../a b",
		"ü":               "=?base64?w7w=?=",
		" x":              "=?base64?IHg=?=",
		"x\t":             "=?base64?eAk=?=",
		"=?base64?eA==?=": "=?base64?PT9iYXNlNjQ/ZUE9PT89?=",
		"":                "",
	} {
		if got := headerValue(in); got != want {
			t.Errorf("headerValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// A server that answers a poll with an event stream that never ends: each
// task request is bounded, and a followed task is cancelled.
func TestTaskRequestsAreBounded(t *testing.T) {
	defer func(d time.Duration) { taskRequestBound = d }(taskRequestBound)
	taskRequestBound = 200 * time.Millisecond
	cancelled := make(chan string, 1)
	s := httpTaskSession(t, "slow", modernVersion, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		msg, _ := jsonrpc.DecodeMessage(body)
		req := msg.(*jsonrpc.Request)
		if req.Method == "tasks/cancel" {
			cancelled <- gjson.GetBytes(req.Params, "taskId").String()
			w.Header().Set("Content-Type", "application/json")
			data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)})
			w.Write(data)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for r.Context().Err() == nil {
			io.WriteString(w, ": still here\n\n")
			w.(http.Flusher).Flush()
			time.Sleep(20 * time.Millisecond)
		}
	})
	_, err := s.GetTask(context.Background(), "t1")
	if f := fail.As(err); f == nil || f.Code != fail.Timeout || f.Msg != `server "slow" did not answer tasks/get for the task t1 within 200ms` {
		t.Fatalf("GetTask: %#v", err)
	}
	_, err = s.FollowTask(context.Background(), &Task{ID: "t2", Status: "working"}, TaskOptions{})
	if f := fail.As(err); f == nil || f.Code != fail.Timeout || f.Msg != `server "slow" did not answer tasks/get within 200ms; cancelled the task t2` {
		t.Fatalf("FollowTask: %#v", err)
	}
	if id := <-cancelled; id != "t2" {
		t.Fatalf("cancelled %q", id)
	}
}

// tasks/list pages: a cursor sent twice, or a list that never ends, is
// refused instead of being followed (or cut short silently).
func TestListTasksEndlessCursor(t *testing.T) {
	for _, tc := range []struct {
		cursor func(n int) string
		want   string
	}{
		{func(int) string { return "again" }, `server "loop" sent the tasks/list cursor "again" twice: its list of tasks does not end`},
		{func(n int) string { return fmt.Sprint("page-", n) }, `server "loop" sent more than 100 pages or 64 MiB of tasks: mcpc stopped listing them`},
	} {
		n := 0
		s := httpTaskSession(t, "loop", "2025-11-25", func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			msg, _ := jsonrpc.DecodeMessage(body)
			n++
			res := fmt.Sprintf(`{"tasks":[{"taskId":"t%d","status":"working"}],"nextCursor":%q}`, n, tc.cursor(n))
			data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: msg.(*jsonrpc.Request).ID, Result: json.RawMessage(res)})
			w.Header().Set("Content-Type", "application/json")
			w.Write(data)
		})
		_, err := s.ListTasks(context.Background())
		if f := fail.As(err); f == nil || f.Code != fail.Protocol || f.Msg != tc.want {
			t.Errorf("ListTasks after %d pages: %v, want %q", n, err, tc.want)
		}
	}
}

// --detach on a tool whose taskSupport is "optional" asks for a task, as
// --task does; "forbidden" or an absent field never does.
func TestLegacyAsTask(t *testing.T) {
	for _, tc := range []struct {
		toolsCall bool
		support   string
		o         TaskOptions
		want      bool
	}{
		{true, "required", TaskOptions{}, true},
		{true, "optional", TaskOptions{}, false},
		{true, "optional", TaskOptions{Ask: true}, true},
		{true, "optional", TaskOptions{Detach: true}, true},
		{true, "forbidden", TaskOptions{Detach: true}, false},
		{true, "", TaskOptions{Ask: true}, false},
		{false, "required", TaskOptions{Detach: true}, false},
	} {
		if got := legacyAsTask(tc.toolsCall, tc.support, tc.o); got != tc.want {
			t.Errorf("legacyAsTask(%v, %q, %+v) = %v", tc.toolsCall, tc.support, tc.o, got)
		}
	}
}

// A server that answers tasks/get with another task than the one asked
// for is not followed.
func TestGetTaskRefusesAnotherTask(t *testing.T) {
	s := httpTaskSession(t, "x", modernVersion, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		msg, _ := jsonrpc.DecodeMessage(body)
		data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: msg.(*jsonrpc.Request).ID,
			Result: json.RawMessage(`{"resultType":"complete","taskId":"other","status":"working"}`)})
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	})
	_, err := s.GetTask(context.Background(), "mine")
	if f := fail.As(err); f == nil || f.Code != fail.Protocol || f.Msg != `server "x" answered tasks/get for the task mine with the task other` {
		t.Fatalf("GetTask: %v", err)
	}
}

// An answer to a question asked under a task carries the task's
// related-task _meta (2025-11-25); other answers are left as they are.
func TestElicitAnswerNamesItsTask(t *testing.T) {
	rt := map[string]any{"taskId": "t1"}
	p := &mcp.ElicitParams{Meta: mcp.Meta{relatedTaskKey: rt}, Message: "?"}
	res := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"a": "b"}}
	got, _ := json.Marshal(withRelatedTask(p, res))
	if string(got) != `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}},"action":"accept","content":{"a":"b"}}` {
		t.Fatalf("answer = %s", got)
	}
	if res.Meta != nil {
		t.Fatal("the handler's result was changed in place")
	}
	if got := withRelatedTask(&mcp.ElicitParams{Message: "?"}, res); got != res {
		t.Fatalf("an answer outside a task changed: %+v", got)
	}
}

// A failed 2026 task is reported with what it carries: the error's message
// and code, else its status message; no made-up code.
func TestFailedTaskMessage(t *testing.T) {
	s := &Session{Label: `server "x"`, resumed: resumed{version: modernVersion}}
	for raw, want := range map[string]string{
		`{"taskId":"t","status":"failed","error":{"code":-32603,"message":"gone"}}`: `the task t failed on server "x": gone (JSON-RPC error -32603)`,
		`{"taskId":"t","status":"failed","statusMessage":"boom"}`:                   `the task t failed on server "x": boom`,
		`{"taskId":"t","status":"failed"}`:                                          `the task t failed on server "x"`,
	} {
		task, err := parseTask(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.taskOutcome(context.Background(), task)
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
	methods := make(chan string, 10)
	s := httpTaskSession(t, "x", "2025-11-25", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		msg, _ := jsonrpc.DecodeMessage(body)
		methods <- msg.(*jsonrpc.Request).Method
		<-r.Context().Done()
	})
	_, err := s.FollowTask(context.Background(), &Task{ID: "t1", Status: "completed"}, TaskOptions{})
	if f := fail.As(err); f == nil || f.Code != fail.Timeout || f.Msg != `server "x" reported the task t1 completed, but did not answer tasks/result within 200ms` {
		t.Fatalf("FollowTask: %v", err)
	}
	var got []string
	for len(methods) > 0 {
		got = append(got, <-methods)
	}
	if len(got) != 1 || got[0] != "tasks/result" {
		t.Fatalf("requests = %v", got)
	}
}

// httpTaskSession is a session opened for tasks (as OpenTasks opens one) on
// the HTTP server h, named name, speaking version (in session "s1" when it
// is 2025-11-25).
func httpTaskSession(t *testing.T, name, version string, h http.HandlerFunc) *Session {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s := &Session{Entry: &config.Entry{Name: name, Server: &config.Server{URL: srv.URL}}, Label: fmt.Sprintf("server %q", name),
		wire: newWire(), resumed: resumed{version: version}, input: &inputState{}, maxMessage: DefaultMaxMessage, idle: &idleWatch{}}
	if version < modernVersion {
		s.resumed.sessionID = "s1"
	}
	if err := s.prepareHTTP(ConnectOptions{Getenv: func(string) string { return "" }}); err != nil {
		t.Fatal(err)
	}
	return s
}

// A 2025 task that needed input, then failed with a JSON-RPC error: the
// error tasks/result returns is the task's failure (1), not a rejection
// of tasks/result (7).
func TestAskingTaskThatFails(t *testing.T) {
	s := httpTaskSession(t, "x", "2025-11-25", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		msg, _ := jsonrpc.DecodeMessage(body)
		req := msg.(*jsonrpc.Request)
		resp := &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"taskId":"t1","status":"failed","statusMessage":"the backend died"}`)}
		if req.Method == "tasks/result" {
			resp = &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: -32000, Message: "backend died"}}
		}
		data, _ := jsonrpc.EncodeMessage(resp)
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	})
	_, err := s.FollowTask(context.Background(), &Task{ID: "t1", Status: "input_required"}, TaskOptions{})
	if f := fail.As(err); f == nil || f.Code != fail.TaskFailed || f.Msg != `the task t1 failed on server "x": backend died (JSON-RPC error -32000)` {
		t.Fatalf("FollowTask: %v", err)
	}
}

// A detached task that cannot be recorded (the state directory is not
// writable) is a config failure that names the task and where.
func TestRememberTaskUnwritable(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tasks"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := &Session{key: "k", wire: newWire(), resumed: resumed{version: "2026-07-28"}, opts: ConnectOptions{Memo: &state.Memo{EraDir: filepath.Join(dir, "eras")}}}
	_, err := s.rememberTask(&Task{ID: "t-1"}, "slow")
	fe := fail.As(err)
	want := fmt.Sprintf("cannot remember the task t-1 in %s", s.tasks().Dir)
	if fe == nil || fe.Code != fail.Config || fe.Code.Exit() != fail.ExitConfig || !strings.HasPrefix(fe.Msg, want+": ") || fe.Hint != "check that the state directory is writable" {
		t.Fatalf("got %#v, want a config failure %q", fe, want)
	}
}

// -32602 to tasks/cancel is a refusal (the task may have ended already);
// to tasks/get it is a task the server no longer knows.
func TestCancelRefused(t *testing.T) {
	s := httpTaskSession(t, "x", "2025-11-25", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		msg, _ := jsonrpc.DecodeMessage(body)
		data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: msg.(*jsonrpc.Request).ID,
			Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "task t1 is completed"}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	})
	_, err := s.CancelTask(context.Background(), "t1")
	if f := fail.As(err); f == nil || f.Code != fail.TaskGone || f.Hint != "mcpc task get shows its status" ||
		f.Msg != `server "x" refused to cancel the task t1: task t1 is completed` {
		t.Fatalf("CancelTask: %#v", err)
	}
	_, err = s.GetTask(context.Background(), "t1")
	if f := fail.As(err); f == nil || f.Code != fail.TaskGone || f.Msg != `server "x" no longer knows the task t1: task t1 is completed` {
		t.Fatalf("GetTask: %#v", err)
	}
}
