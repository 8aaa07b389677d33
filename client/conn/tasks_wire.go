package conn

import (
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// taskField adds the 2025-11-25 task field to the one tools/call that
// asks for a task, and SEP-3182's idempotencyKey to each attempt of a call
// that has one. (mcpc's own task requests go on the tap's side channel.)
type taskField struct {
	mu       sync.Mutex
	nextTask json.RawMessage // the "task" field of the next tools/call
	// idemKey is SEP-3182's idempotencyKey of every tools/call (each
	// attempt of one call) while a call that has one runs; nil: none.
	idemKey json.RawMessage
}

// withKey sends key as the idempotencyKey of the tools/call requests made
// until the returned func is called ("" sends none).
func (t *taskField) withKey(key string) func() {
	if key == "" {
		return func() {}
	}
	b, _ := json.Marshal(key)
	t.mu.Lock()
	t.idemKey = b
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		t.idemKey = nil
		t.mu.Unlock()
	}
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
	field, key := t.nextTask, t.idemKey
	t.nextTask = nil
	t.mu.Unlock()
	if field == nil && key == nil {
		return
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(req.Params, &top) != nil || top == nil {
		return
	}
	if field != nil {
		top["task"] = field
	}
	if key != nil {
		top["idempotencyKey"] = key
	}
	if b, err := json.Marshal(top); err == nil {
		req.Params = b
	}
}
