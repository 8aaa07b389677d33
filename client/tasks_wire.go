package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// taskWire lets mcpc send the task methods (tasks/get, tasks/result,
// tasks/cancel, tasks/list, tasks/update), which the SDK does not know,
// over a stdio connection the SDK is using: mcpc writes its own requests
// with ids the SDK never uses, and takes their answers off the connection
// before the SDK sees them. Messages the server sends meanwhile (an
// elicitation asked under a task, progress) still reach the SDK, which
// answers them as usual. It also adds the 2025-11-25 task field to the
// one tools/call that asks for a task.
type taskWire struct {
	mu       sync.Mutex
	seq      int
	write    func(context.Context, jsonrpc.Message) error
	waiting  map[string]chan *jsonrpc.Response
	nextTask json.RawMessage // the "task" field of the next tools/call
	gone     chan struct{}   // closed when the connection is lost
	goneOnce sync.Once
}

// ownIDPrefix marks the ids of mcpc's own requests; the SDK numbers its
// requests.
const ownIDPrefix = "mcpc-"

func (t *taskWire) setWriter(w func(context.Context, jsonrpc.Message) error) {
	t.mu.Lock()
	t.write = w
	t.mu.Unlock()
}

// askTask makes the next tools/call a task-augmented one (2025-11-25).
func (t *taskWire) askTask(field json.RawMessage) {
	t.mu.Lock()
	t.nextTask = field
	t.mu.Unlock()
}

// augment adds the task field to a tools/call when one was asked for.
func (t *taskWire) augment(req *jsonrpc.Request) {
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

// nextID is a fresh id for one of mcpc's own requests.
func (t *taskWire) nextID() jsonrpc.ID {
	t.mu.Lock()
	t.seq++
	n := t.seq
	t.mu.Unlock()
	id, _ := jsonrpc.MakeID(fmt.Sprintf("%s%d", ownIDPrefix, n))
	return id
}

// claim takes the answer to one of mcpc's own requests off the
// connection; it reports whether msg was one.
func (t *taskWire) claim(msg jsonrpc.Message) bool {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return false
	}
	s, ok := resp.ID.Raw().(string)
	if !ok || !strings.HasPrefix(s, ownIDPrefix) {
		return false
	}
	t.mu.Lock()
	ch := t.waiting[s]
	delete(t.waiting, s)
	t.mu.Unlock()
	if ch != nil {
		ch <- resp
	}
	return true
}

// call sends one request over the stdio connection and waits for its
// answer.
func (t *taskWire) call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	t.mu.Lock()
	write := t.write
	t.mu.Unlock()
	if write == nil {
		return nil, fmt.Errorf("no connection to send %s on", method)
	}
	id := t.nextID()
	key := id.Raw().(string)
	ch := make(chan *jsonrpc.Response, 1)
	t.mu.Lock()
	if t.waiting == nil {
		t.waiting = map[string]chan *jsonrpc.Response{}
	}
	t.waiting[key] = ch
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.waiting, key)
		t.mu.Unlock()
	}()
	if err := write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: params}); err != nil {
		return nil, err
	}
	select {
	case resp := <-ch:
		if resp.Error != nil {
			return nil, resp.Error
		}
		return resp.Result, nil
	case <-t.goneCh():
		return nil, errConnectionLost
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

var errConnectionLost = errors.New("the connection to the server was lost")

func (t *taskWire) goneCh() chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gone == nil {
		t.gone = make(chan struct{})
	}
	return t.gone
}

// lost is told that the connection ended: no answer will come.
func (t *taskWire) lost() {
	ch := t.goneCh()
	t.goneOnce.Do(func() { close(ch) })
}
