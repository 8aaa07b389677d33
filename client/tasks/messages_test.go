package tasks

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// A 2026 server that breaks the tasks SEP is named, as a protocol
// failure: a completed task with no result, input requests that are not
// a map of requests.
func TestBrokenTaskReports(t *testing.T) {
	s := &fakeSession{label: `server "x"`, modern: true}
	task, err := parseTask(json.RawMessage(`{"taskId":"t","status":"completed"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = taskOutcome(context.Background(), s, task)
	if f := fail.As(err); f == nil || f.Code != fail.Protocol || f.Msg != `server "x" reported the task t completed without a result` {
		t.Errorf("completed without a result: %v", err)
	}
	task, err = parseTask(json.RawMessage(`{"taskId":"t","status":"input_required","inputRequests":[1]}`))
	if err != nil {
		t.Fatal(err)
	}
	err = answerTask(context.Background(), s, task, map[string]bool{})
	if f := fail.As(err); f == nil || f.Code != fail.Protocol ||
		!strings.HasPrefix(f.Msg, `server "x" sent input requests mcpc cannot read for the task t: `) {
		t.Errorf("unreadable input requests: %v", err)
	}
}

// A server that never answers tasks/list is given up on after the bound
// of a task request, as a timeout that says which request.
func TestSilentTaskListIsBounded(t *testing.T) {
	defer func(d time.Duration) { taskRequestBound = d }(taskRequestBound)
	taskRequestBound = 200 * time.Millisecond
	store := (&state.Memo{EraDir: filepath.Join(t.TempDir(), "eras")}).Tasks("k")
	s := &fakeSession{label: `server "x"`, modern: true, store: store, request: silent}
	_, err := List(context.Background(), s, 1<<20)
	if f := fail.As(err); f == nil || f.Code != fail.Timeout || f.Msg != `server "x" did not answer tasks/list within 200ms` {
		t.Fatalf("List: %v", err)
	}
}
