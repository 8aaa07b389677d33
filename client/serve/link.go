package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// A Link is one downstream client's line to a held server: a connection
// to the server's holder, which maps ids and progress tokens, routes the
// server's questions and notifications to the client they are for, and
// cancels the client's requests when it goes away (client/hold). serve
// opens one per client: a stdio client, a 2025 HTTP client's
// Mcp-Session-Id, a 2026-07-28 HTTP request.
//
// The entry's tool filter (includeTools, excludeTools) and serve's
// Policy hold here, the one place each client's messages pass: a tool
// either refuses is left out of every tools/list answer, and a call of it
// is answered by serve, never sent on. The call log is written here too.
type Link struct {
	c net.Conn
	rules

	wmu   sync.Mutex
	in    chan jsonrpc.Message // from the holder, read by one goroutine
	local chan jsonrpc.Message // answers serve gives itself
	err   error                // why in closed
	// quit is closed by Close: what waits to hand a message on gives up.
	quit      chan struct{}
	closeOnce sync.Once

	mu    sync.Mutex
	lists map[string]bool         // the client's tools/list requests in flight
	calls map[string]*pendingCall // its requests in flight, with --log
	// With --request-timeout: the client's requests in flight, each
	// with its timer, and those serve answered when it fired, whose
	// server's late answer is dropped.
	timers map[string]*time.Timer
	late   map[string]bool
	// open are the client's requests not yet answered, and kept says
	// nothing but requests and their answers went over the link (pool.go):
	// a link left so may serve the next stateless request.
	open map[string]bool
	kept bool
	// idle is set while the link waits in its upstream's pool: what the
	// holder sends then (a notification to every client) is no one's.
	idle atomic.Bool
	// readDone is closed when the holder's side has ended.
	readDone chan struct{}
	// taskLists are its tasks/list requests in flight (tasks.go).
	taskLists map[string]bool
}

// rules are what holds on one link: the entry's filter, serve's policy,
// and the names the call log gives.
type rules struct {
	hidden     func(tool string) string // why the filter hides tool; "" shown
	policy     *Policy
	server     string // the server's plain name: SERVER in SERVER__TOOL
	downstream string // the client, for the call log
	label      string // the server, for messages
	// timeout bounds the wait for the server's answer to one request
	// (--request-timeout); 0: none.
	timeout time.Duration
	// book is who owns each task of the server (tasks.go); nil: no
	// ownership kept.
	book *taskBook
}

// newLink opens a link over c, reading messages of at most limit bytes.
func newLink(c net.Conn, limit int64, r rules) *Link {
	l := &Link{c: c, rules: r, in: make(chan jsonrpc.Message, 16), local: make(chan jsonrpc.Message, 16),
		quit: make(chan struct{}), lists: map[string]bool{}, taskLists: map[string]bool{}, calls: map[string]*pendingCall{},
		timers: map[string]*time.Timer{}, late: map[string]bool{},
		open: map[string]bool{}, kept: true, readDone: make(chan struct{})}
	go l.read(transport.NewMessageReader(c, int(limit)))
	return l
}

// read passes what the holder sends on to in until the link ends; the
// requests left unanswered are logged so.
func (l *Link) read(r *transport.MessageReader) {
	defer close(l.readDone)
	defer close(l.in)
	defer l.unanswered()
	for {
		msgs, err := r.Read()
		if err != nil {
			l.err = err
			return
		}
		for _, m := range msgs {
			if m = l.filtered(m); m == nil {
				// answered by serve already (--request-timeout), or
				// another client's task's news
				continue
			}
			if l.idle.Load() {
				continue // between requests: for none of them
			}
			select {
			case l.in <- m:
			case <-l.quit:
				return // closed: nobody reads what comes
			}
		}
	}
}

// Send passes msg to the held server, or answers it here when it calls a
// tool the filter or the policy refuses.
func (l *Link) Send(msg jsonrpc.Message) error {
	if ans := l.screen(msg); ans != nil {
		l.answered(transport.IDKey(ans.ID), ans)
		select {
		case l.local <- ans:
		case <-l.quit:
		}
		return nil
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if _, err = l.c.Write(append(data, '\n')); err != nil {
		l.spoil()
	}
	return err
}

// screen is serve's own answer to msg, when it calls a refused tool;
// nil when msg goes on. It notes what the answer will need: a tools/list
// answer is filtered, a request is logged.
func (l *Link) screen(msg jsonrpc.Message) *jsonrpc.Response {
	r, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil
	}
	if !r.IsCall() {
		l.spoil() // the holder may answer for it, or not, later
		if r.Method == "notifications/cancelled" {
			l.cancelled(rawmsg.View(r.Params).Get("requestId"))
		}
		return nil
	}
	key := transport.IDKey(r.ID)
	params := rawmsg.View(r.Params)
	if ans := l.taskRefusal(r, key, params); ans != nil {
		return ans
	}
	l.sent(key, r.Method, params)
	var c *pendingCall
	if l.policy != nil && l.policy.Log != nil {
		c = &pendingCall{start: time.Now(), method: r.Method, size: len(r.Params)}
		c.name = params.Get("name").String()
		if r.Method == "resources/read" {
			c.name = params.Get("uri").String()
		}
		if r.Method == "tools/call" {
			c.args = json.RawMessage(params.Get("arguments").Raw)
		}
	}
	switch {
	case r.Method == "tools/list" && l.filters():
		l.mu.Lock()
		l.lists[key] = true
		l.mu.Unlock()
	case r.Method == "tools/call":
		why := oneName(params)
		if why == "" {
			why = l.refusal(params.Get("name").String())
		}
		if why != "" {
			if c != nil {
				l.policy.Log.write(l.downstream, l.server, c, "refused", 0, why, len(why))
			}
			return &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: why}}
		}
	}
	if c != nil {
		l.mu.Lock()
		l.calls[key] = c
		l.mu.Unlock()
	}
	l.arm(key, r)
	return nil
}

// arm starts r's timer, with --request-timeout: when it fires before the
// server answers, the server is told to cancel r and the client gets
// serve's answer, a JSON-RPC error saying so.
func (l *Link) arm(key string, r *jsonrpc.Request) {
	if l.timeout <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timers[key] = time.AfterFunc(l.timeout, func() { l.expired(key, r) })
}

// lateMax bounds the answers serve waits to drop: a server that answers
// nothing it timed out would grow the set with every request. Past it,
// the set starts again (a late answer then reaches the client, which
// ignores an answer to an id it no longer waits for).
const lateMax = 4096

// expired answers r for its server, which did not within the timeout.
func (l *Link) expired(key string, r *jsonrpc.Request) {
	l.mu.Lock()
	if l.timers[key] == nil {
		l.mu.Unlock()
		return // answered meanwhile
	}
	delete(l.timers, key)
	if len(l.late) >= lateMax {
		clear(l.late)
	}
	l.late[key] = true
	l.mu.Unlock()
	why := fmt.Sprintf("%s did not answer %s within %s (mcpc serve --request-timeout): serve cancelled it", l.label, r.Method, l.timeout)
	if c := l.pending(key); c != nil {
		l.policy.Log.write(l.downstream, l.server, c, "timeout", 0, why, len(why))
	}
	params, _ := json.Marshal(map[string]any{"requestId": r.ID.Raw(), "reason": why})
	if data, err := jsonrpc.EncodeMessage(&jsonrpc.Request{Method: "notifications/cancelled", Params: params}); err == nil {
		l.wmu.Lock()
		l.c.Write(append(data, '\n'))
		l.wmu.Unlock()
	}
	select {
	case l.local <- &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: codeRequestTimeout, Message: why}}:
	case <-l.quit:
	}
}

// codeRequestTimeout is the JSON-RPC error of a request serve stopped
// waiting for: the code the SDKs give their own request timeouts.
const codeRequestTimeout = -32001

// untimed stops key's timer; false when serve answered it already (the
// server's answer is late, and dropped).
func (l *Link) untimed(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.late[key] {
		delete(l.late, key)
		return false
	}
	if t := l.timers[key]; t != nil {
		t.Stop()
		delete(l.timers, key)
	}
	return true
}

// filters says tools/list answers lose tools on this link.
func (l *Link) filters() bool { return l.hidden != nil || l.policy.active() }

// refusal is why a call of tool is answered by serve: the entry's filter
// first, then serve's policy; "" when it goes on.
func (l *Link) refusal(tool string) string {
	if l.hidden != nil {
		if why := l.hidden(tool); why != "" {
			return fmt.Sprintf("unknown tool %q: the server's entry does not lend it (%s)", tool, why)
		}
	}
	if why := l.policy.refuses(l.server, tool); why != "" {
		return fmt.Sprintf("unknown tool %q: mcpc serve does not lend it (%s)", tool, why)
	}
	return ""
}

// cancelled logs the request id names as cancelled by the client: its
// server need not answer it.
func (l *Link) cancelled(id gjson.Result) {
	rid, err := jsonrpc.MakeID(id.Value())
	if err != nil || !id.Exists() {
		return
	}
	if c := l.pending(transport.IDKey(rid)); c != nil {
		l.policy.Log.write(l.downstream, l.server, c, "cancelled", 0, "", 0)
	}
}

// pending takes the logged request of key off the calls in flight.
func (l *Link) pending(key string) *pendingCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.calls[key]
	delete(l.calls, key)
	return c
}

// unanswered logs the requests still in flight as the link ends.
func (l *Link) unanswered() {
	l.mu.Lock()
	calls := l.calls
	l.calls = map[string]*pendingCall{}
	l.mu.Unlock()
	for _, c := range calls {
		l.policy.Log.write(l.downstream, l.server, c, "unanswered", 0, "", 0)
	}
}

// Receive is the next message from the held server for this client (or
// serve's own answer); an error once the link has ended.
func (l *Link) Receive() (jsonrpc.Message, error) { return l.receive(nil) }

// receive is Receive, given up when stop is closed (errStopped).
func (l *Link) receive(stop <-chan struct{}) (jsonrpc.Message, error) {
	select {
	case m := <-l.local:
		return m, nil
	case m, ok := <-l.in:
		if ok {
			return m, nil
		}
	case <-stop:
		return nil, errStopped
	}
	select {
	case m := <-l.local:
		return m, nil
	default:
		return nil, l.err
	}
}

// filtered is m with the tools the filter or the policy refuses left
// out, when m answers one of the client's tools/list requests; the
// answer to a logged request is logged; nil when serve answered the
// request already (--request-timeout).
func (l *Link) filtered(m jsonrpc.Message) jsonrpc.Message {
	r, ok := m.(*jsonrpc.Response)
	if !ok {
		q, ok := m.(*jsonrpc.Request)
		if ok && l.foreignTask(q) {
			return nil
		}
		if ok && q.IsCall() {
			l.spoil() // a question of the server's, asked of this client
		}
		return m
	}
	key := transport.IDKey(r.ID)
	if l.timeout > 0 && !l.untimed(key) {
		return nil
	}
	l.answered(key, r)
	if c := l.pending(key); c != nil {
		l.logAnswer(c, r)
	}
	r = l.taskAnswered(key, r)
	m = r
	l.mu.Lock()
	list := l.lists[key]
	delete(l.lists, key)
	l.mu.Unlock()
	if !list || r.Error != nil {
		return m
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(r.Result, &res) != nil {
		return m
	}
	tools := rawmsg.View(res["tools"])
	l.policy.learn(l.server, tools)
	var kept []json.RawMessage
	tools.ForEach(func(_, t gjson.Result) bool {
		if l.refusal(t.Get("name").String()) == "" {
			kept = append(kept, json.RawMessage(t.Raw))
		}
		return true
	})
	if kept == nil {
		kept = []json.RawMessage{}
	}
	res["tools"], _ = json.Marshal(kept)
	out, err := json.Marshal(res)
	if err != nil {
		return m
	}
	return &jsonrpc.Response{ID: r.ID, Result: out}
}

// logAnswer logs c as r answers it.
func (l *Link) logAnswer(c *pendingCall, r *jsonrpc.Response) {
	switch {
	case r.Error != nil:
		var code int64
		var e *jsonrpc.Error
		if errors.As(r.Error, &e) {
			code = e.Code
		}
		msg := r.Error.Error()
		l.policy.Log.write(l.downstream, l.server, c, "error", code, msg, len(msg))
	case c.method == "tools/call" && rawmsg.View(r.Result).Get("isError").Type == gjson.True:
		l.policy.Log.write(l.downstream, l.server, c, "tool-error", 0, "", len(r.Result))
	default:
		l.policy.Log.write(l.downstream, l.server, c, "ok", 0, "", len(r.Result))
	}
}

// Close ends the link: the holder cancels what the client left running.
func (l *Link) Close() error {
	l.closeOnce.Do(func() {
		close(l.quit)
		if l.book != nil {
			l.book.forget(l)
		}
	})
	l.mu.Lock()
	for _, t := range l.timers {
		t.Stop()
	}
	l.mu.Unlock()
	return l.c.Close()
}

// oneName refuses a tools/call whose params name the tool other than by
// one "name" key: the filter and the policy check the name serve reads,
// which must be the one the server runs (a second "name" wins in most
// decoders, "Name" in Go's case-blind one).
func oneName(params gjson.Result) string {
	n, exact := 0, true
	params.ForEach(func(k, _ gjson.Result) bool {
		if strings.EqualFold(k.Str, "name") {
			n++
			exact = exact && k.Str == "name"
		}
		return true
	})
	if n == 1 && exact {
		return ""
	}
	return `a tools/call names its tool once, by "name": serve does not pass on one that names it otherwise`
}

// Call sends req and returns its answer, passing every other message that
// comes first to other (nil: dropped).
func (l *Link) Call(ctx context.Context, req *jsonrpc.Request, other func(jsonrpc.Message)) (*jsonrpc.Response, error) {
	stop := context.AfterFunc(ctx, func() { l.c.Close() })
	defer stop()
	if err := l.Send(req); err != nil {
		return nil, err
	}
	for {
		m, err := l.Receive()
		if err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, err
		}
		if r, ok := m.(*jsonrpc.Response); ok && transport.IDKey(r.ID) == transport.IDKey(req.ID) {
			return r, nil
		}
		if other != nil {
			other(m)
		}
	}
}
