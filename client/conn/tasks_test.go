package conn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/input"
	"github.com/mcpc-dev/mcpc/client/tasks"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
)

// The 2025 task field goes on the next tools/call only, once.
func TestAugmentAddsTaskFieldOnce(t *testing.T) {
	var tw taskField
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

// The session's side of a task request: the task id and, on 2026-07-28,
// the _meta envelope go in its params, and a server that answers with an
// event stream that never ends holds it only as long as its context (the
// bound package tasks sets).
func TestTaskRequestEndsWithItsContext(t *testing.T) {
	params := make(chan json.RawMessage, 1)
	s := httpTaskSession(t, "slow", modernVersion, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		msg, _ := jsonrpc.DecodeMessage(body)
		params <- msg.(*jsonrpc.Request).Params
		w.Header().Set("Content-Type", "text/event-stream")
		for r.Context().Err() == nil {
			io.WriteString(w, ": still here\n\n")
			w.(http.Flusher).Flush()
			time.Sleep(20 * time.Millisecond)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := taskConn{s}.Request(ctx, "tasks/get", "t1", map[string]any{"x": 1})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Request: %v", err)
	}
	p := gjson.ParseBytes(<-params)
	if p.Get("taskId").String() != "t1" || p.Get("x").Int() != 1 || p.Get("_meta."+gjson.Escape(mcp.MetaKeyProtocolVersion)).String() != modernVersion {
		t.Fatalf("params = %s", p.Raw)
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

// httpTaskSession is a session opened for tasks (as OpenTasks opens one) on
// the HTTP server h, named name, speaking version (in session "s1" when it
// is 2025-11-25).
func httpTaskSession(t *testing.T, name, version string, h http.HandlerFunc) *Conn {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s := &Conn{Entry: &config.Entry{Name: name, Server: &config.Server{URL: srv.URL}}, Label: fmt.Sprintf("server %q", name),
		wire: newWire(), resumed: resumed{version: version}, input: &input.State{Modern: func() bool { return false }}, maxMessage: transport.DefaultMaxMessage, idle: transport.NewIdleWatch(0)}
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
	_, err := s.FollowTask(context.Background(), &tasks.Task{ID: "t1", Status: "input_required"}, tasks.Options{})
	if f := fail.As(err); f == nil || f.Code != fail.TaskFailed || f.Msg != `the task t1 failed on server "x": backend died (JSON-RPC error -32000)` {
		t.Fatalf("FollowTask: %v", err)
	}
}
