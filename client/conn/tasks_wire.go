package conn

import (
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// taskField adds the 2025-11-25 task field to the one tools/call that
// asks for a task. (mcpc's own task requests go on the tap's side channel.)
type taskField struct {
	mu       sync.Mutex
	nextTask json.RawMessage // the "task" field of the next tools/call
}

// askTask makes the next tools/call a task-augmented one (2025-11-25).
func (t *taskField) askTask(field json.RawMessage) {
	t.mu.Lock()
	t.nextTask = field
	t.mu.Unlock()
}

// augment adds the task field to a tools/call when one was asked for.
func (t *taskField) augment(req *jsonrpc.Request) {
	if req.Method != "tools/call" {
		return
	}
	t.mu.Lock()
	field := t.nextTask
	t.nextTask = nil
	t.mu.Unlock()
	if field == nil {
		return
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(req.Params, &top) != nil || top == nil {
		return
	}
	top["task"] = field
	if b, err := json.Marshal(top); err == nil {
		req.Params = b
	}
}
