package serve

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// taskNotFound is what serve answers a tasks/* request naming a task the
// client does not own: the upstream's own answer for an unknown task
// (-32602, as the spec says), so a foreign task looks like none at all.
const taskNotFound = "Failed to retrieve task: Task not found"

// maxTasks bounds the tasks one Upstream's book remembers: past it, the
// oldest is forgotten (its owner reaches it no more), so clients that
// start tasks without end cannot grow serve.
const maxTasks = 4096

// statelessOwner owns the tasks of 2026-07-28 stateless requests: each
// has a link of its own and nothing names the client it came from, so
// they own their tasks together, apart from every session's.
const statelessOwner = "stateless"

// A taskBook is which downstream owns each task of one server: the
// holder follows a task for whoever names it (mcpc task), so serve keeps
// its clients apart here, one entry per task its answers created.
type taskBook struct {
	mu    sync.Mutex
	owner map[string]any // task id → the owning link, or statelessOwner
	order []string       // oldest first, for maxTasks
}

func (b *taskBook) add(id string, owner any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.owner == nil {
		b.owner = map[string]any{}
	}
	if _, ok := b.owner[id]; !ok {
		b.order = append(b.order, id)
	}
	b.owner[id] = owner
	for len(b.order) > maxTasks {
		delete(b.owner, b.order[0])
		b.order = b.order[1:]
	}
}

func (b *taskBook) owns(id string, owner any) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.owner[id]
	return ok && o == owner
}

// forget drops the tasks of owner, whose link ended.
func (b *taskBook) forget(owner any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	kept := b.order[:0]
	for _, id := range b.order {
		if b.owner[id] == owner {
			delete(b.owner, id)
			continue
		}
		kept = append(kept, id)
	}
	b.order = kept
}

// taskOwner is who owns what this link's answers create.
func (l *Link) taskOwner() any {
	if l.downstream == "http" {
		return statelessOwner
	}
	return l
}

// taskRefusal is serve's answer to r, a tasks/* request naming a task
// this link's client does not own; nil when r goes on. A tasks/list is
// noted: its answer keeps the client's own tasks only.
func (l *Link) taskRefusal(r *jsonrpc.Request, key string, params gjson.Result) *jsonrpc.Response {
	if l.book == nil || !strings.HasPrefix(r.Method, "tasks/") {
		return nil
	}
	if r.Method == "tasks/list" {
		l.mu.Lock()
		l.taskLists[key] = true
		l.mu.Unlock()
		return nil
	}
	if id := params.Get("taskId"); id.Type == gjson.String && l.book.owns(id.Str, l.taskOwner()) {
		return nil
	}
	return &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: taskNotFound}}
}

// taskAnswered notes the task an answer created (2025: result.task; a
// 2026-07-28 resultType "task") as this client's, and filters a
// tasks/list answer to the client's own tasks; it returns r, or the
// filtered answer.
func (l *Link) taskAnswered(key string, r *jsonrpc.Response) *jsonrpc.Response {
	if l.book == nil {
		return r
	}
	l.mu.Lock()
	list := l.taskLists[key]
	delete(l.taskLists, key)
	l.mu.Unlock()
	res := rawmsg.View(r.Result)
	if r.Error != nil || !res.IsObject() {
		return r
	}
	owner := l.taskOwner()
	if id := res.Get("task.taskId"); id.Type == gjson.String {
		l.book.add(strings.Clone(id.Str), owner)
	}
	if id := res.Get("taskId"); id.Type == gjson.String && res.Get("resultType").Str == "task" {
		l.book.add(strings.Clone(id.Str), owner)
	}
	if !list {
		return r
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(r.Result, &top) != nil {
		return r
	}
	kept := []json.RawMessage{}
	rawmsg.View(top["tasks"]).ForEach(func(_, t gjson.Result) bool {
		if id := t.Get("taskId"); id.Type == gjson.String && l.book.owns(id.Str, owner) {
			kept = append(kept, json.RawMessage(t.Raw))
		}
		return true
	})
	top["tasks"], _ = json.Marshal(kept)
	out, err := json.Marshal(top)
	if err != nil {
		return r
	}
	return &jsonrpc.Response{ID: r.ID, Result: out}
}

// foreignTask says m is a task's status notification about a task this
// client does not own: the holder tells every client, serve only the
// owner.
func (l *Link) foreignTask(m *jsonrpc.Request) bool {
	if l.book == nil || m.Method != "notifications/tasks/status" {
		return false
	}
	id := rawmsg.View(m.Params).Get("taskId")
	return id.Type != gjson.String || !l.book.owns(id.Str, l.taskOwner())
}
