package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// SideChannel lets mcpc send the task methods (tasks/get, tasks/result,
// tasks/cancel, tasks/list, tasks/update), which the SDK does not know,
// over a stdio connection the SDK is using: mcpc writes its own requests
// with ids the SDK never uses, and takes their answers off the connection
// before the SDK sees them. Messages the server sends meanwhile (an
// elicitation asked under a task, progress) still reach the SDK, which
// answers them as usual.
type SideChannel struct {
	mu       sync.Mutex
	seq      int
	write    func(context.Context, jsonrpc.Message) error
	waiting  map[string]chan *jsonrpc.Response
	streams  map[string]func(*jsonrpc.Request) // the streams open (Stream), by id
	gone     chan struct{}                     // closed when the connection is lost
	goneOnce sync.Once
}

// ownIDPrefix marks the ids of mcpc's own requests; the SDK numbers its
// requests.
const ownIDPrefix = "mcpc-"

func (t *SideChannel) setWriter(w func(context.Context, jsonrpc.Message) error) {
	t.mu.Lock()
	t.write = w
	t.mu.Unlock()
}

// Send writes msg to the server as it is, beside the SDK (stdio only).
func (t *SideChannel) Send(ctx context.Context, msg jsonrpc.Message) error {
	t.mu.Lock()
	write := t.write
	t.mu.Unlock()
	if write == nil {
		return errConnectionLost
	}
	return write(ctx, msg)
}

// NextID is a fresh id for one of mcpc's own requests (on HTTP too).
func (t *SideChannel) NextID() jsonrpc.ID {
	t.mu.Lock()
	t.seq++
	n := t.seq
	t.mu.Unlock()
	id, _ := jsonrpc.MakeID(fmt.Sprintf("%s%d", ownIDPrefix, n))
	return id
}

// OwnID reports whether id is one of mcpc's own requests' (NextID).
func OwnID(id jsonrpc.ID) bool {
	s, ok := id.Raw().(string)
	return ok && strings.HasPrefix(s, ownIDPrefix)
}

// claim takes the answer to one of mcpc's own requests off the
// connection; it reports whether msg was one.
func (t *SideChannel) claim(msg jsonrpc.Message) bool {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return t.claimStream(msg)
	}
	if !OwnID(resp.ID) {
		return false
	}
	s := resp.ID.Raw().(string)
	t.mu.Lock()
	ch := t.waiting[s]
	delete(t.waiting, s)
	t.mu.Unlock()
	if ch != nil {
		ch <- resp
	}
	return true
}

// Call sends one request over the stdio connection and waits for its
// answer.
func (t *SideChannel) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	res, err := t.call(ctx, method, params, nil)
	return res.result, err
}

// sent is what call returns: the request's id (invalid when it was not
// sent) and its result.
type sent struct {
	id     jsonrpc.ID
	result json.RawMessage
}

// call sends one request and waits for its answer; frame, when set,
// receives the notifications that name the request (Stream) meanwhile.
func (t *SideChannel) call(ctx context.Context, method string, params json.RawMessage, frame func(*jsonrpc.Request)) (sent, error) {
	t.mu.Lock()
	write := t.write
	t.mu.Unlock()
	if write == nil {
		return sent{}, fmt.Errorf("no connection to send %s on", method)
	}
	id := t.NextID()
	key := id.Raw().(string)
	ch := make(chan *jsonrpc.Response, 1)
	t.mu.Lock()
	if t.waiting == nil {
		t.waiting = map[string]chan *jsonrpc.Response{}
		t.streams = map[string]func(*jsonrpc.Request){}
	}
	t.waiting[key] = ch
	if frame != nil {
		t.streams[key] = frame
	}
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.waiting, key)
		delete(t.streams, key)
		t.mu.Unlock()
	}()
	if err := write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: params}); err != nil {
		return sent{}, err
	}
	select {
	case resp := <-ch:
		if resp.Error != nil {
			return sent{id: id}, resp.Error
		}
		return sent{id, resp.Result}, nil
	case <-t.goneCh():
		return sent{id: id}, errConnectionLost
	case <-ctx.Done():
		return sent{id: id}, context.Cause(ctx)
	}
}

var errConnectionLost = errors.New("the connection to the server was lost")

func (t *SideChannel) goneCh() chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gone == nil {
		t.gone = make(chan struct{})
	}
	return t.gone
}

// lost is told that the connection ended: no answer will come.
func (t *SideChannel) lost() {
	ch := t.goneCh()
	t.goneOnce.Do(func() { close(ch) })
}
