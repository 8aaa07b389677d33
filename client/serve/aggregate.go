package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// Aggregate is several servers lent as one. Each downstream client's
// Line is a fan: a Link to each server's holder, and serve between them
// and the client. Tools and prompts are named SERVER + Separator + NAME;
// resources keep their URIs and go to the server that listed them (a URI
// two servers list is the first's; the later one's is
// mcpc+resource://SERVER/URI); the handshake is serve's own, the union
// of the servers' capabilities, their instructions joined under their
// names.
type Aggregate struct {
	Servers   []*Upstream // each with its plain Name in Names
	Names     []string    // the servers' names, as SERVER in SERVER__NAME
	Separator string      // "__" unless --separator
	Version   string      // mcpc's, in serverInfo
	// Log, when set, is told of a clash between two servers' resource
	// URIs, the first time a list shows one: what a client now reaches
	// under another URI is said where serve's operator reads it.
	Log func(msg string)

	mu      sync.Mutex
	owner   map[string]int // resource URIs as clients see them: which server listed them first
	clashes map[[2]int]bool
}

// resourcePrefix names a resource of one server whose URI another server
// lists too: mcpc+resource://SERVER/URI.
const resourcePrefix = "mcpc+resource://"

// Label names the servers, for messages.
func (a *Aggregate) Label() string { return "servers " + strings.Join(a.Names, ", ") }

// MaxMessage is the smallest of the servers' bounds.
func (a *Aggregate) MaxMessage() int64 {
	m := a.Servers[0].Limit
	for _, u := range a.Servers[1:] {
		m = min(m, u.Limit)
	}
	return m
}

// Open links a client of era to every server.
func (a *Aggregate) Open(ctx context.Context, era Era) (Line, error) {
	f := &fan{a: a, era: era, out: make(chan jsonrpc.Message, 64), done: make(chan struct{}),
		waiting: map[string]chan *jsonrpc.Response{}, routes: map[string]int{}, asked: map[string]asked{}}
	for _, u := range a.Servers {
		l, err := u.line(ctx, era)
		if err != nil {
			f.Close()
			return nil, err
		}
		f.links = append(f.links, l)
	}
	for i := range f.links {
		go f.read(i)
	}
	return f, nil
}

// fan is one client's Line to every server of an Aggregate.
type fan struct {
	a     *Aggregate
	era   Era
	links []Line
	out   chan jsonrpc.Message // to the client
	done  chan struct{}
	once  sync.Once
	err   error

	mu      sync.Mutex
	seq     int64
	waiting map[string]chan *jsonrpc.Response // serve's own requests, by id
	routes  map[string]int                    // the client's requests in flight, by id: which server
	// logs says which servers declared logging in the client's handshake
	// (nil before it): logging/setLevel goes to those alone, as a server
	// without logging may refuse it ("logging not supported").
	logs  []bool
	asked map[string]asked // the servers' questions, by the id the client sees
}

// asked is a server's question as the client sees it: the server's id
// for it, and the client's.
type asked struct {
	server int
	id     jsonrpc.ID
	client jsonrpc.ID
}

// read passes what server i sends on: answers to serve's own requests to
// their waiters, the rest to the client, renamed.
func (f *fan) read(i int) {
	for {
		m, err := f.links[i].Receive()
		if err != nil {
			f.end(fmt.Errorf("%s went away: %w", f.a.Servers[i].Name, err))
			return
		}
		switch v := m.(type) {
		case *jsonrpc.Response:
			key := transport.IDKey(v.ID)
			f.mu.Lock()
			w := f.waiting[key]
			delete(f.waiting, key)
			delete(f.routes, key)
			f.mu.Unlock()
			if w != nil {
				w <- v
				continue
			}
			f.toClient(f.fromServer(i, v))
		case *jsonrpc.Request:
			if v.IsCall() {
				// A question: the client answers it under an id of serve's.
				f.mu.Lock()
				f.seq++
				id, _ := jsonrpc.MakeID(fmt.Sprintf("agg-q-%d", f.seq))
				f.asked[transport.IDKey(id)] = asked{server: i, id: v.ID, client: id}
				f.mu.Unlock()
				f.toClient(&jsonrpc.Request{ID: id, Method: v.Method, Params: v.Params})
				continue
			}
			f.toClient(f.notification(i, v))
		}
	}
}

func (f *fan) toClient(m jsonrpc.Message) {
	if m == nil {
		return
	}
	select {
	case f.out <- m:
	case <-f.done:
	}
}

// end ends the fan once, with err.
func (f *fan) end(err error) {
	f.once.Do(func() {
		f.err = err
		close(f.done)
	})
}

// Receive is the next message for the client.
func (f *fan) Receive() (jsonrpc.Message, error) {
	select {
	case m := <-f.out:
		return m, nil
	case <-f.done:
		select {
		case m := <-f.out:
			return m, nil
		default:
		}
		return nil, f.err
	}
}

// Close ends every link: each holder cancels what the client left
// running on its server.
func (f *fan) Close() error {
	f.end(errors.New("closed"))
	for _, l := range f.links {
		l.Close()
	}
	return nil
}

// Send passes a message of the client's on: a request to the server it
// names (or to all, merged), an answer to the server that asked.
func (f *fan) Send(m jsonrpc.Message) error {
	switch v := m.(type) {
	case *jsonrpc.Response:
		key := transport.IDKey(v.ID)
		f.mu.Lock()
		q, ok := f.asked[key]
		delete(f.asked, key)
		f.mu.Unlock()
		if !ok {
			return nil // no question of a server's had that id
		}
		return f.links[q.server].Send(&jsonrpc.Response{ID: q.id, Result: v.Result, Error: v.Error})
	case *jsonrpc.Request:
		if !v.IsCall() {
			return f.clientNotification(v)
		}
		go f.request(v)
	}
	return nil
}

// clientNotification passes a notification of the client's on: a
// cancellation to the server its request went to, the rest to all.
func (f *fan) clientNotification(v *jsonrpc.Request) error {
	if v.Method == "notifications/cancelled" {
		req := rawmsg.View(v.Params).Get("requestId")
		id, err := jsonrpc.MakeID(req.Value())
		if err != nil {
			return nil
		}
		f.mu.Lock()
		i, ok := f.routes[transport.IDKey(id)]
		f.mu.Unlock()
		if ok {
			return f.links[i].Send(v)
		}
		return nil
	}
	for _, l := range f.links {
		l.Send(v)
	}
	return nil
}

// request answers one request of the client's.
func (f *fan) request(r *jsonrpc.Request) {
	res, rpcErr := f.answer(r)
	if res == nil && rpcErr == nil {
		return // sent on: its server answers it
	}
	f.toClient(&jsonrpc.Response{ID: r.ID, Result: res, Error: rpcErr})
}

// answer is serve's answer to r, or nil, nil when r went on to the one
// server it names.
func (f *fan) answer(r *jsonrpc.Request) (json.RawMessage, *jsonrpc.Error) {
	switch r.Method {
	case "initialize", "server/discover":
		return f.handshake(r)
	case "ping":
		return json.RawMessage(`{}`), nil
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		return f.list(r)
	case "logging/setLevel":
		return f.setLevel(r)
	case "tools/call", "prompts/get":
		return f.byName(r)
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		return f.byURI(r, "uri")
	case "completion/complete":
		return f.complete(r)
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
		Message: fmt.Sprintf("%s is not served for several servers at once", r.Method)}
}

// forward sends r, renamed as params, to server i: its answer reaches the
// client from there.
func (f *fan) forward(r *jsonrpc.Request, i int, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	f.mu.Lock()
	f.routes[transport.IDKey(r.ID)] = i
	f.mu.Unlock()
	if err := f.links[i].Send(&jsonrpc.Request{ID: r.ID, Method: r.Method, Params: params}); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s went away", f.a.Servers[i].Name)}
	}
	return nil, nil
}

// ask sends a request of serve's own to server i and waits for its answer.
func (f *fan) ask(i int, method string, params json.RawMessage) (*jsonrpc.Response, error) {
	f.mu.Lock()
	f.seq++
	id, _ := jsonrpc.MakeID(fmt.Sprintf("agg-%d", f.seq))
	w := make(chan *jsonrpc.Response, 1)
	f.waiting[transport.IDKey(id)] = w
	f.mu.Unlock()
	if err := f.links[i].Send(&jsonrpc.Request{ID: id, Method: method, Params: params}); err != nil {
		return nil, err
	}
	select {
	case r := <-w:
		return r, nil
	case <-f.done:
		return nil, f.err
	}
}

// askAll asks every server at once; each answer (or error) in its place,
// nil where params are nil: a server not asked.
func (f *fan) askAll(method string, params func(i int) json.RawMessage) []*jsonrpc.Response {
	res := make([]*jsonrpc.Response, len(f.links))
	var wg sync.WaitGroup
	for i := range f.links {
		if params(i) == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := f.ask(i, method, params(i))
			if err != nil {
				r = &jsonrpc.Response{Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}}
			}
			res[i] = r
		}()
	}
	wg.Wait()
	return res
}

// setLevel sends r to every server that declared logging (every server,
// before a handshake says which) and answers {} once all have.
func (f *fan) setLevel(r *jsonrpc.Request) (json.RawMessage, *jsonrpc.Error) {
	f.mu.Lock()
	logs := f.logs
	f.mu.Unlock()
	asked := func(i int) json.RawMessage {
		if logs != nil && !logs[i] {
			return nil
		}
		if r.Params == nil {
			return json.RawMessage(`{}`)
		}
		return r.Params
	}
	for i, resp := range f.askAll(r.Method, asked) {
		if resp != nil && resp.Error != nil {
			return nil, f.serverError(i, resp.Error)
		}
	}
	return json.RawMessage(`{}`), nil
}

// serverError is server i's error to the client, naming the server.
func (f *fan) serverError(i int, e error) *jsonrpc.Error {
	var rpc *jsonrpc.Error
	if errors.As(e, &rpc) {
		return &jsonrpc.Error{Code: rpc.Code, Message: f.a.Names[i] + ": " + rpc.Message, Data: rpc.Data}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: f.a.Names[i] + ": " + e.Error()}
}
