package tasks

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// Remembering is what listing the remembered tasks needs of a session
// opened to reach them (client.OpenTasks).
type Remembering interface {
	// Modern reports whether the session speaks 2026-07-28.
	Modern() bool
	// TaskRecords are the remembered detached tasks, oldest first.
	TaskRecords() []*state.TaskRecord
	// HTTPSessionsOfTasks are the 2025 sessions holding remembered tasks.
	HTTPSessionsOfTasks() []string
	// UseHTTPSession makes the session speak as the remembered 2025 one.
	UseHTTPSession(id string)
	GetTask(ctx context.Context, id string) (*Task, error)
	// ListTasks sends tasks/list, every page, in one {"tasks": [...]}.
	ListTasks(ctx context.Context) (json.RawMessage, error)
}

// ListRemembered returns the tasks mcpc remembers on a server as one
// {"tasks": [...]} document, each task as the server sent it: on a 2025
// server, tasks/list in every remembered session; on a 2026-07-28 one,
// which has no tasks/list, each remembered task's status. A session or a
// task that cannot be reached is left out, its failure in errs.
func ListRemembered(ctx context.Context, s Remembering) (doc json.RawMessage, errs []error) {
	var items []string
	if s.Modern() {
		for _, r := range s.TaskRecords() {
			t, err := s.GetTask(ctx, r.TaskID)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			items = append(items, string(t.Raw))
		}
	} else {
		for _, sid := range s.HTTPSessionsOfTasks() {
			s.UseHTTPSession(sid)
			raw, err := s.ListTasks(ctx)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			rawmsg.View(raw).Get("tasks").ForEach(func(_, t gjson.Result) bool {
				items = append(items, t.Raw)
				return true
			})
		}
	}
	return json.RawMessage(`{"tasks":[` + strings.Join(items, ",") + `]}`), errs
}
