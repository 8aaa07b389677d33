package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/mcpc-dev/mcpc/client/state"
)

// remembering answers from maps: tasks by id (2026-07-28), tasks/list by
// the session in use (2025).
type remembering struct {
	modern   bool
	records  []*state.TaskRecord
	sessions []string
	used     string
	tasks    map[string]string
	lists    map[string]string
}

func (r *remembering) Modern() bool                     { return r.modern }
func (r *remembering) TaskRecords() []*state.TaskRecord { return r.records }
func (r *remembering) HTTPSessionsOfTasks() []string    { return r.sessions }
func (r *remembering) UseHTTPSession(id string)         { r.used = id }
func (r *remembering) GetTask(_ context.Context, id string) (*Task, error) {
	raw, ok := r.tasks[id]
	if !ok {
		return nil, fmt.Errorf("no task %s", id)
	}
	return &Task{ID: id, Raw: json.RawMessage(raw)}, nil
}
func (r *remembering) ListTasks(context.Context) (json.RawMessage, error) {
	raw, ok := r.lists[r.used]
	if !ok {
		return nil, fmt.Errorf("session %s is gone", r.used)
	}
	return json.RawMessage(raw), nil
}

func TestListRemembered(t *testing.T) {
	for _, c := range []struct {
		name string
		r    *remembering
		doc  string
		errs []string
	}{{
		name: "2026-07-28: each remembered task's status, one gone",
		r: &remembering{modern: true, records: []*state.TaskRecord{{TaskID: "t-1"}, {TaskID: "t-2"}, {TaskID: "t-3"}},
			tasks: map[string]string{"t-1": `{"taskId":"t-1","status":"working"}`, "t-3": `{"taskId":"t-3","status":"completed"}`}},
		doc:  `{"tasks":[{"taskId":"t-1","status":"working"},{"taskId":"t-3","status":"completed"}]}`,
		errs: []string{"no task t-2"},
	}, {
		name: "2025-11-25: tasks/list in each remembered session, one gone",
		r: &remembering{sessions: []string{"s-2", "s-1", "s-0"}, lists: map[string]string{
			"s-2": `{"tasks":[{"taskId":"a"},{"taskId":"b"}]}`, "s-0": `{"tasks":[{"taskId":"c"}]}`}},
		doc:  `{"tasks":[{"taskId":"a"},{"taskId":"b"},{"taskId":"c"}]}`,
		errs: []string{"session s-1 is gone"},
	}, {
		name: "nothing remembered",
		r:    &remembering{},
		doc:  `{"tasks":[]}`,
	}} {
		doc, errs := ListRemembered(context.Background(), c.r)
		if string(doc) != c.doc || !json.Valid(doc) {
			t.Errorf("%s: doc %s, want %s", c.name, doc, c.doc)
		}
		if got := fmt.Sprint(errs); got != fmt.Sprint(toErrors(c.errs)) {
			t.Errorf("%s: errs %v, want %v", c.name, errs, c.errs)
		}
	}
}

func toErrors(msgs []string) []error {
	var errs []error
	for _, m := range msgs {
		errs = append(errs, errors.New(m))
	}
	return errs
}
