package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// taskServer answers as a server whose every tools/call starts a task
// (2025: result.task; a call named "modern": a 2026-07-28 resultType
// "task"), whose tasks/get answers any id and whose tasks/list lists
// every task started.
func taskServer() func(string, json.RawMessage) json.RawMessage {
	var seq atomic.Int64
	return func(method string, params json.RawMessage) json.RawMessage {
		var p struct{ Name, TaskID string }
		json.Unmarshal(params, &p)
		var out string
		switch method {
		case "tools/call":
			n := seq.Add(1)
			out = fmt.Sprintf(`{"task":{"taskId":"t-%d","status":"working"}}`, n)
			if p.Name == "modern" {
				out = fmt.Sprintf(`{"resultType":"task","taskId":"t-%d","status":"working"}`, n)
			}
		case "tasks/list":
			out = `{"tasks":[`
			for i := int64(1); i <= seq.Load(); i++ {
				if i > 1 {
					out += ","
				}
				out += fmt.Sprintf(`{"taskId":"t-%d","status":"working"}`, i)
			}
			out += `]}`
		default:
			out = fmt.Sprintf(`{"taskId":%q,"status":"working"}`, p.TaskID)
		}
		return json.RawMessage(out)
	}
}

// One client's tasks are its own: another that names one (learnt or
// guessed) is told there is no such task, as the server tells of an
// unknown one, and tasks/list shows each client its own tasks only.
func TestTasksOwnedByTheirClient(t *testing.T) {
	u := scriptedHolder(t, taskServer())
	ctx := WithDownstream(context.Background(), "stdio")
	a, err := u.Link(ctx, Legacy)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := u.Link(WithDownstream(context.Background(), "http:b"), Legacy)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	call := func(l *Link, id int, method, params string) string {
		t.Helper()
		res, err := l.Call(context.Background(), request(t, id, method, params), nil)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := jsonrpc.EncodeMessage(res)
		return string(data)
	}
	call(a, 1, "tools/call", `{"name":"slow","task":{}}`) // t-1, a's
	call(b, 1, "tools/call", `{"name":"modern"}`)         // t-2, b's (2026-07-28)
	notFound := `{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"Failed to retrieve task: Task not found"}}`
	for i, m := range []string{"tasks/get", "tasks/result", "tasks/cancel", "tasks/update"} {
		if got, want := call(b, 10+i, m, `{"taskId":"t-1"}`), fmt.Sprintf(notFound, 10+i); got != want {
			t.Errorf("b's %s of a's task:\n%s\nwant\n%s", m, got, want)
		}
		if got, want := call(a, 10+i, m, `{"taskId":"t-9"}`), fmt.Sprintf(notFound, 10+i); got != want {
			t.Errorf("a's %s of an unknown task:\n%s\nwant\n%s", m, got, want)
		}
	}
	if got, want := call(a, 20, "tasks/get", `{"taskId":"t-1"}`), `{"jsonrpc":"2.0","id":20,"result":{"taskId":"t-1","status":"working"}}`; got != want {
		t.Errorf("a's own task:\n%s\nwant\n%s", got, want)
	}
	if got, want := call(b, 20, "tasks/get", `{"taskId":"t-2"}`), `{"jsonrpc":"2.0","id":20,"result":{"taskId":"t-2","status":"working"}}`; got != want {
		t.Errorf("b's own task:\n%s\nwant\n%s", got, want)
	}
	if got, want := call(a, 21, "tasks/list", `{}`), `{"jsonrpc":"2.0","id":21,"result":{"tasks":[{"taskId":"t-1","status":"working"}]}}`; got != want {
		t.Errorf("a's tasks/list:\n%s\nwant\n%s", got, want)
	}
	if got, want := call(b, 21, "tasks/list", `{}`), `{"jsonrpc":"2.0","id":21,"result":{"tasks":[{"taskId":"t-2","status":"working"}]}}`; got != want {
		t.Errorf("b's tasks/list:\n%s\nwant\n%s", got, want)
	}
	// A client gone, its tasks are no one's: a new client cannot take them.
	a.Close()
	c, err := u.Link(WithDownstream(context.Background(), "http:c"), Legacy)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, want := call(c, 30, "tasks/get", `{"taskId":"t-1"}`), fmt.Sprintf(notFound, 30); got != want {
		t.Errorf("c's get of a gone client's task:\n%s\nwant\n%s", got, want)
	}
}
