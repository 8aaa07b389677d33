package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"

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
// The entry's tool filter (includeTools, excludeTools) holds here, the
// one place each client's messages pass: a hidden tool is left out of
// every tools/list answer, and a call of it is answered by serve, never
// sent on.
type Link struct {
	c      net.Conn
	hidden func(tool string) string // why the filter hides tool; "" shown

	wmu   sync.Mutex
	in    chan jsonrpc.Message // from the holder, read by one goroutine
	local chan jsonrpc.Message // answers serve gives itself
	err   error                // why in closed

	mu    sync.Mutex
	lists map[string]bool // the client's tools/list requests in flight
}

// newLink opens a link over c, reading messages of at most limit bytes.
func newLink(c net.Conn, limit int64, hidden func(string) string) *Link {
	l := &Link{c: c, hidden: hidden, in: make(chan jsonrpc.Message, 16), local: make(chan jsonrpc.Message, 16), lists: map[string]bool{}}
	go l.read(transport.NewMessageReader(c, int(limit)))
	return l
}

// read passes what the holder sends on to in until the link ends.
func (l *Link) read(r *transport.MessageReader) {
	defer close(l.in)
	for {
		msgs, err := r.Read()
		if err != nil {
			l.err = err
			return
		}
		for _, m := range msgs {
			l.in <- l.filtered(m)
		}
	}
}

// Send passes msg to the held server, or answers it here when it calls a
// tool the filter hides.
func (l *Link) Send(msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Request); ok && r.IsCall() && l.hidden != nil {
		switch r.Method {
		case "tools/list":
			l.mu.Lock()
			l.lists[transport.IDKey(r.ID)] = true
			l.mu.Unlock()
		case "tools/call":
			name := rawmsg.View(r.Params).Get("name").String()
			if why := l.hidden(name); why != "" {
				l.local <- &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: fmt.Sprintf("unknown tool %q: the server's entry does not lend it (%s)", name, why)}}
				return nil
			}
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	_, err = l.c.Write(append(data, '\n'))
	return err
}

// Receive is the next message from the held server for this client (or
// serve's own answer); an error once the link has ended.
func (l *Link) Receive() (jsonrpc.Message, error) {
	select {
	case m := <-l.local:
		return m, nil
	case m, ok := <-l.in:
		if ok {
			return m, nil
		}
	}
	select {
	case m := <-l.local:
		return m, nil
	default:
		return nil, l.err
	}
}

// filtered is m with the tools the filter hides left out, when m answers
// one of the client's tools/list requests.
func (l *Link) filtered(m jsonrpc.Message) jsonrpc.Message {
	r, ok := m.(*jsonrpc.Response)
	if !ok || r.Error != nil || l.hidden == nil {
		return m
	}
	key := transport.IDKey(r.ID)
	l.mu.Lock()
	list := l.lists[key]
	delete(l.lists, key)
	l.mu.Unlock()
	if !list {
		return m
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(r.Result, &res) != nil {
		return m
	}
	var kept []json.RawMessage
	rawmsg.View(res["tools"]).ForEach(func(_, t gjson.Result) bool {
		if l.hidden(t.Get("name").String()) == "" {
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

// Close ends the link: the holder cancels what the client left running.
func (l *Link) Close() error { return l.c.Close() }

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
