package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// A translation is a client's Line to a server that does not speak the
// client's era but speaks the other: a Link to a holder of the other era,
// and serve between them (docs/design.md, "Era translation").
//
// A 2026-07-28 client of a 2025 server: server/discover is answered from
// the server's initialize result (which the holder gives); the
// io.modelcontextprotocol/* keys leave each request's _meta (the rest,
// progressToken and trace context, stays), a per-request log level
// becoming a logging/setLevel; a question of the server's (elicitation,
// sampling, roots) is asked in the answer to the client's call when the
// line lasts (translate_ask.go), else refused at once; its ping is
// answered here. subscriptions/listen is acknowledged here: the server's list
// changes reach every client of its holder anyway.
//
// A 2025 client of a 2026-07-28 server: initialize is answered from
// server/discover, notifications/initialized and ping are answered here,
// logging/setLevel becomes the per-request log level, and each request
// carries the three io.modelcontextprotocol/* keys (the client's
// capabilities and info from its initialize). An input_required answer
// is turned into the client's own questions (rounds.go).
type translation struct {
	l      *Link // to a holder of the other era
	client Era   // the era the client speaks
	name   string
	out    chan jsonrpc.Message // to the client
	done   chan struct{}
	once   sync.Once
	err    error
	// timeout bounds the wait for a 2025 client's answer to one of
	// serve's questions (--request-timeout); 0: none.
	timeout time.Duration
	lasting bool // the line outlives a request (stdio, a 2025 HTTP session)

	mu      sync.Mutex
	seq     int64
	waiting map[string]chan *jsonrpc.Response // serve's own requests, by id
	meta    map[string]json.RawMessage        // a 2025 client's: the keys each request gets
	level   string                            // the log level set (a 2025 client's) or last sent (a 2026-07-28 one's)
	listen  map[string]bool                   // a 2026-07-28 client's subscriptions/listen ids, by IDKey
	sub     json.RawMessage                   // the first of them: what the server's list changes name
	rounds  map[string]*inputRound            // a 2025 client's requests that may take input rounds, by IDKey
	asking  map[string]chan *jsonrpc.Response // serve's questions to a 2025 client, by id
	calls   map[string]*modernCall            // a 2026-07-28 client's calls in flight, by the server's id
	states  map[string]*modernCall            // its calls whose question is out, by requestState
}

// line opens the Line for a client of era: a Link to a holder of the
// era, or a translation over a Link to a holder of the other when the
// server does not speak era.
func (u *Upstream) line(ctx context.Context, era Era) (Line, error) {
	l, err := u.Link(ctx, era)
	if err == nil {
		return l, nil
	}
	if ctx.Err() != nil || !eraRefused(u, err) {
		return nil, err
	}
	other := Legacy
	if era == Legacy {
		other = Modern
	}
	ol, oerr := u.Link(ctx, other)
	if oerr != nil {
		return nil, err // the era the client speaks is the news
	}
	if u.Log != nil {
		if _, said := translatedNoted.LoadOrStore(noteKey{u, era}, true); !said {
			how := "translated for 2026-07-28 clients, as it speaks a 2025 revision only"
			if era == Legacy {
				how = "translated for 2025 clients, as it speaks 2026-07-28 only"
			}
			u.Log(u.Name + ": " + how)
		}
	}
	// A stateless HTTP request's line ends with its answer: a question
	// cannot wait on it for the client's retry (translate_ask.go).
	lasting := downstreamOf(ctx) != "http"
	return newTranslation(ol, era, u.Name, u.RequestTimeout, lasting), nil
}

// eraRefused says err, Link's failure, means the server does not speak
// the era: a refusal of it (fail.Protocol, which Upstream remembers), an
// HTTP 400 to its handshake (how a Streamable HTTP server such as the Go
// SDK's refuses a revision it does not speak, before any JSON-RPC; not
// remembered, so each client of the era asks once more), or a session of
// the other era and no Hold.
func eraRefused(u *Upstream, err error) bool {
	var he *transport.HTTPError
	return fail.CodeOf(err) == fail.Protocol || errors.As(err, &he) && he.Status() == http.StatusBadRequest ||
		u.Hold == nil && u.Session != ""
}

// translatedNoted holds the translations serve has noted, once each for
// the life of the process (an Upstream lives as long).
var translatedNoted sync.Map

type noteKey struct {
	u   *Upstream
	era Era
}

func newTranslation(l *Link, client Era, name string, timeout time.Duration, lasting bool) *translation {
	t := &translation{l: l, client: client, name: name, timeout: timeout, lasting: lasting,
		calls: map[string]*modernCall{}, states: map[string]*modernCall{}, out: make(chan jsonrpc.Message, 16), done: make(chan struct{}),
		waiting: map[string]chan *jsonrpc.Response{}, listen: map[string]bool{}, rounds: map[string]*inputRound{},
		asking: map[string]chan *jsonrpc.Response{}}
	go t.pump()
	return t
}

// pump passes what the holder sends on until the link ends: answers to
// serve's own requests to their waiters, questions answered here, the
// rest to the client.
func (t *translation) pump() {
	for {
		m, err := t.l.Receive()
		if err != nil {
			t.end(err)
			return
		}
		switch v := m.(type) {
		case *jsonrpc.Response:
			key := transport.IDKey(v.ID)
			t.mu.Lock()
			w := t.waiting[key]
			delete(t.waiting, key)
			t.mu.Unlock()
			if w != nil {
				w <- v
				continue
			}
			if t.client == Legacy && t.inputRequired(v) {
				continue // serve asks the client, and sends the request again
			}
			if t.client == Modern && t.callAnswered(v) {
				continue
			}
			t.toClient(v)
		case *jsonrpc.Request:
			if v.IsCall() {
				t.serverAsks(v)
				continue
			}
			t.toClient(t.notification(v))
		}
	}
}

// serverAsks answers a question of a 2025 server's for a 2026-07-28
// client: a ping here, the rest refused at once (the server's request,
// not the client's, waits on it otherwise). A 2026-07-28 server asks
// nothing over a line; what it might is refused alike.
func (t *translation) serverAsks(r *jsonrpc.Request) {
	if t.client == Modern && t.askInResult(r) {
		return
	}
	resp := &jsonrpc.Response{ID: r.ID, Result: json.RawMessage(`{}`)}
	if r.Method != "ping" {
		resp = &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: fmt.Sprintf("%s: mcpc serve cannot pass %s to this client: it speaks %s, asked in an input_required answer, which serve gives only to the one call in flight on a line that lasts (stdio), for a capability the call declares",
				t.name, r.Method, t.client)}}
	}
	t.l.Send(resp)
}

// notification is a server's notification as the client reads it: for a
// 2026-07-28 client, a list change names the listen it answers.
func (t *translation) notification(v *jsonrpc.Request) jsonrpc.Message {
	if t.client != Modern || !strings.HasSuffix(v.Method, "/list_changed") {
		return v
	}
	t.mu.Lock()
	sub := t.sub
	t.mu.Unlock()
	if sub == nil {
		return v
	}
	params := editMeta(v.Params, func(meta map[string]json.RawMessage) { meta[subscriptionKey] = sub })
	return &jsonrpc.Request{Method: v.Method, Params: params}
}

const (
	metaPrefix      = "io.modelcontextprotocol/"
	subscriptionKey = metaPrefix + "subscriptionId"
	// maxListens bounds a 2026-07-28 client's listens on one line: each
	// is kept until the line ends.
	maxListens = 16
)

func (t *translation) toClient(m jsonrpc.Message) {
	select {
	case t.out <- m:
	case <-t.done:
	}
}

func (t *translation) end(err error) {
	t.once.Do(func() {
		t.err = err
		close(t.done)
	})
}

// Receive is the next message for the client.
func (t *translation) Receive() (jsonrpc.Message, error) {
	select {
	case m := <-t.out:
		return m, nil
	case <-t.done:
		select {
		case m := <-t.out:
			return m, nil
		default:
		}
		return nil, t.err
	}
}

// Close ends the link: the holder cancels what the client left running.
func (t *translation) Close() error {
	t.end(errors.New("closed"))
	return t.l.Close()
}

// Send passes a message of the client's on, translated, or answers it.
func (t *translation) Send(m jsonrpc.Message) error {
	switch v := m.(type) {
	case *jsonrpc.Response:
		if t.answered(v) {
			return nil
		}
		return t.l.Send(v)
	case *jsonrpc.Request:
		if t.client == Modern {
			return t.fromModern(v)
		}
		return t.fromLegacy(v)
	}
	return nil
}

// fromModern passes on a 2026-07-28 client's message to a 2025 server.
func (t *translation) fromModern(r *jsonrpc.Request) error {
	switch {
	case r.Method == "server/discover" && r.IsCall():
		go t.reply(r.ID, t.discover)
		return nil
	case r.Method == "ping" && r.IsCall():
		t.toClient(&jsonrpc.Response{ID: r.ID, Result: json.RawMessage(`{}`)})
		return nil
	case r.Method == "subscriptions/listen" && r.IsCall():
		// Acknowledged, and never answered: the listen lasts as long as the
		// client's line. The holder sends every client the server's list
		// changes; this client's name its listen.
		t.mu.Lock()
		full := len(t.listen) >= maxListens
		meta, _ := json.Marshal(map[string]any{subscriptionKey: r.ID.Raw()})
		if !full {
			t.listen[transport.IDKey(r.ID)] = true
			if t.sub == nil {
				t.sub, _ = json.Marshal(r.ID.Raw())
			}
		}
		t.mu.Unlock()
		if full {
			t.toClient(&jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: fmt.Sprintf("at most %d subscriptions/listen at once on one line", maxListens)}})
			return nil
		}
		ack := `{"_meta":` + string(meta) + `}`
		if n := rawmsg.View(r.Params).Get("notifications"); n.IsObject() {
			ack = `{"_meta":` + string(meta) + `,"notifications":` + n.Raw + `}`
		}
		t.toClient(&jsonrpc.Request{Method: "notifications/subscriptions/acknowledged", Params: json.RawMessage(ack)})
		return nil
	}
	if r.Method == "notifications/cancelled" {
		r = t.cancelled(r)
	}
	if r.IsCall() {
		if t.held(r) {
			return nil
		}
		if level := rawmsg.View(r.Params).Get("_meta." + gjson.Escape(metaPrefix+"logLevel")); level.Type == gjson.String {
			t.setLevel(level.Str)
		}
	}
	return t.l.Send(&jsonrpc.Request{ID: r.ID, Method: r.Method, Params: stripMeta(r.Params)})
}

// setLevel tells a 2025 server the log level a 2026-07-28 client's
// request names, when it is not the one last told: the holder keeps a
// level per client, so no other client's log changes.
func (t *translation) setLevel(level string) {
	t.mu.Lock()
	same := t.level == level
	t.level = level
	t.mu.Unlock()
	if same {
		return
	}
	params, _ := json.Marshal(map[string]string{"level": level})
	t.ask("logging/setLevel", params, false)
}

// discover is a 2025 server's server/discover result, from its
// initialize result as its holder answers it.
func (t *translation) discover() (json.RawMessage, *jsonrpc.Error) {
	init := `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpc serve","version":"0"}}`
	r, err := t.ask("initialize", json.RawMessage(init), true)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s went away", t.name)}
	}
	if r.Error != nil {
		return nil, asRPCError(r.Error)
	}
	t.l.Send(&jsonrpc.Request{Method: "notifications/initialized"})
	res := rawmsg.View(r.Result)
	out := map[string]any{"supportedVersions": []string{Modern.Protocol()}, "capabilities": json.RawMessage(`{}`)}
	if c := res.Get("capabilities"); c.IsObject() {
		out["capabilities"] = json.RawMessage(c.Raw)
	}
	if i := res.Get("instructions"); i.Type == gjson.String {
		out["instructions"] = i.Str
	}
	if s := res.Get("serverInfo"); s.IsObject() {
		out["_meta"] = map[string]json.RawMessage{metaPrefix + "serverInfo": json.RawMessage(s.Raw)}
	}
	b, _ := json.Marshal(out)
	return b, nil
}

// fromLegacy passes on a 2025 client's message to a 2026-07-28 server.
func (t *translation) fromLegacy(r *jsonrpc.Request) error {
	switch {
	case r.Method == "initialize" && r.IsCall():
		t.initialized(r.Params)
		go t.reply(r.ID, func() (json.RawMessage, *jsonrpc.Error) { return t.initialize(r.Params) })
		return nil
	case r.Method == "notifications/initialized":
		return nil // the server was never to be initialized
	case r.Method == "ping" && r.IsCall():
		t.toClient(&jsonrpc.Response{ID: r.ID, Result: json.RawMessage(`{}`)})
		return nil
	case r.Method == "logging/setLevel" && r.IsCall():
		// 2026-07-28 names the level in each request's _meta.
		t.mu.Lock()
		t.level = rawmsg.View(r.Params).Get("level").String()
		t.mu.Unlock()
		t.toClient(&jsonrpc.Response{ID: r.ID, Result: json.RawMessage(`{}`)})
		return nil
	}
	if r.Method == "notifications/cancelled" {
		return t.l.Send(t.cancelled(r))
	}
	if !r.IsCall() {
		return t.l.Send(r)
	}
	sent := &jsonrpc.Request{ID: r.ID, Method: r.Method, Params: t.withMeta(r.Params)}
	t.watch(r, sent)
	return t.l.Send(sent)
}

// initialized keeps what a 2025 client's initialize says of it: the
// _meta each of its requests gets.
func (t *translation) initialized(params json.RawMessage) {
	p := rawmsg.View(params)
	meta := map[string]json.RawMessage{
		metaPrefix + "protocolVersion":    json.RawMessage(`"` + Modern.Protocol() + `"`),
		metaPrefix + "clientCapabilities": json.RawMessage(`{}`),
	}
	if c := p.Get("capabilities"); c.IsObject() {
		meta[metaPrefix+"clientCapabilities"] = json.RawMessage(c.Raw)
	}
	if i := p.Get("clientInfo"); i.IsObject() {
		meta[metaPrefix+"clientInfo"] = json.RawMessage(i.Raw)
	}
	t.mu.Lock()
	t.meta = meta
	t.mu.Unlock()
}

// withMeta is a 2025 client's request params with the keys a 2026-07-28
// server reads in _meta.
func (t *translation) withMeta(params json.RawMessage) json.RawMessage {
	t.mu.Lock()
	meta, level := t.meta, t.level
	t.mu.Unlock()
	if meta == nil {
		// No initialize came first: the client says nothing of itself.
		meta = map[string]json.RawMessage{metaPrefix + "protocolVersion": json.RawMessage(`"` + Modern.Protocol() + `"`),
			metaPrefix + "clientCapabilities": json.RawMessage(`{}`)}
	}
	return editMeta(params, func(m map[string]json.RawMessage) {
		for k, v := range meta {
			m[k] = v
		}
		if level != "" {
			m[metaPrefix+"logLevel"], _ = json.Marshal(level)
		}
	})
}

// initialize is a 2026-07-28 server's initialize result for a 2025
// client, from its server/discover result as its holder answers it.
func (t *translation) initialize(params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	r, err := t.ask("server/discover", t.withMeta(json.RawMessage(`{}`)), true)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s went away", t.name)}
	}
	if r.Error != nil {
		return nil, asRPCError(r.Error)
	}
	res := rawmsg.View(r.Result)
	version := rawmsg.View(params).Get("protocolVersion").String()
	if !legacyRevision(version) {
		version = Legacy.Protocol()
	}
	out := map[string]any{"protocolVersion": version, "capabilities": json.RawMessage(`{}`),
		"serverInfo": map[string]string{"name": t.name, "version": ""}}
	if c := res.Get("capabilities"); c.IsObject() {
		out["capabilities"] = json.RawMessage(c.Raw)
	}
	if s := res.Get("_meta." + gjson.Escape(metaPrefix+"serverInfo")); s.IsObject() {
		out["serverInfo"] = json.RawMessage(s.Raw)
	}
	if i := res.Get("instructions"); i.Type == gjson.String {
		out["instructions"] = i.Str
	}
	b, _ := json.Marshal(out)
	return b, nil
}

// legacyRevision says v is a 2025 revision (or older) mcpc knows.
func legacyRevision(v string) bool {
	switch v {
	case "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25":
		return true
	}
	return false
}

// reply answers the client's request id with what answer says.
func (t *translation) reply(id jsonrpc.ID, answer func() (json.RawMessage, *jsonrpc.Error)) {
	res, rpcErr := answer()
	if rpcErr != nil {
		t.toClient(&jsonrpc.Response{ID: id, Error: rpcErr})
		return
	}
	t.toClient(&jsonrpc.Response{ID: id, Result: res})
}

// ask sends a request of serve's own to the holder; with wait, it waits
// for the answer (the link's end is an error), else the answer is
// dropped.
func (t *translation) ask(method string, params json.RawMessage, wait bool) (*jsonrpc.Response, error) {
	t.mu.Lock()
	t.seq++
	id, _ := jsonrpc.MakeID(fmt.Sprintf("serve-tr-%d", t.seq))
	w := make(chan *jsonrpc.Response, 1)
	t.waiting[transport.IDKey(id)] = w
	t.mu.Unlock()
	if err := t.l.Send(&jsonrpc.Request{ID: id, Method: method, Params: params}); err != nil {
		return nil, err
	}
	if !wait {
		return nil, nil
	}
	select {
	case r := <-w:
		return r, nil
	case <-t.done:
		return nil, t.err
	}
}

// asRPCError is err as the client reads it.
func asRPCError(err error) *jsonrpc.Error {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return rpc
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// stripMeta is params without the io.modelcontextprotocol/* keys of its
// _meta, which a 2025 server does not read (and may refuse); the rest of
// _meta stays. Params with none are returned as they are.
func stripMeta(params json.RawMessage) json.RawMessage {
	has := false
	rawmsg.View(params).Get("_meta").ForEach(func(k, _ gjson.Result) bool {
		has = strings.HasPrefix(k.Str, metaPrefix)
		return !has
	})
	if !has {
		return params
	}
	return editMeta(params, func(m map[string]json.RawMessage) {
		for k := range m {
			if strings.HasPrefix(k, metaPrefix) {
				delete(m, k)
			}
		}
	})
}

// editMeta is params (an object, or nothing) with its _meta as edit
// leaves it; an empty _meta is left out. Params that are no object are
// returned as they are: the server says what it makes of them.
func editMeta(params json.RawMessage, edit func(map[string]json.RawMessage)) json.RawMessage {
	top := map[string]json.RawMessage{}
	if p := rawmsg.View(params); p.Exists() && p.Type != gjson.Null {
		if !p.IsObject() || json.Unmarshal(params, &top) != nil {
			return params
		}
	}
	meta := map[string]json.RawMessage{}
	json.Unmarshal(top["_meta"], &meta)
	edit(meta)
	delete(top, "_meta")
	if len(meta) > 0 {
		top["_meta"], _ = json.Marshal(meta)
	}
	out, err := json.Marshal(top)
	if err != nil {
		return params
	}
	return out
}
