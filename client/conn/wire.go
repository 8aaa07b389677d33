package conn

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/listkind"
	"github.com/mcpc-dev/mcpc/internal/listpages"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// wire is the layer below the SDK. Every JSON-RPC message of a connection
// passes through it raw, shown to it by its tap on stdio (a wrapper around
// the connection) and on HTTP (the RoundTripper), so that the SDK keeps
// doing the protocol while mcpc
//   - keeps each result exactly as it arrived, for --json;
//   - answers server/discover from the era memo and cacheable requests from
//     the result cache, so only what must travel goes on the wire;
//   - adds trace context to every request's _meta;
//   - refuses the SDK's fallback to initialize under a 2026-07-28 pin;
//   - traces each message under --verbose.
type wire struct {
	memo      *state.Memo
	serverKey string
	credKey   string // hash of the credential in use: private results stay with it
	noCache   bool
	pinModern bool
	discover  json.RawMessage   // replayed for server/discover when set
	meta      map[string]string // added to every request's params._meta
	verbose   func(line string) // --verbose; nil when off

	mu           sync.Mutex
	pending      map[string]pendingReq
	big          map[string]json.RawMessage   // large results kept by Frame, by request id
	results      map[string][]json.RawMessage // by method, in arrival order
	lastDiscover json.RawMessage
	discoverErr  *jsonrpc.Error
	discoverHTTP *transport.HTTPError // what server/discover was answered with over HTTP, when not a result
	refusedInit  bool

	stray    string // the id of the last response to no request of ours
	activity func() // told of every message from the server; nil: none
	// keep, when set, says which items of a list result the SDK is given
	// (listForSDK); nil: all of them.
	keep func(method, name string) bool

	// deliver handles a log or progress notification from its raw params
	// and says whether it did (Skip); nil: the SDK does.
	deliver func(method string, params []byte) bool

	// tasks asks for a task on the next tools/call (tasks_wire.go).
	tasks taskField
	// tap shows the wire every message and keeps the transport's bounds;
	// its side channel carries mcpc's own requests on stdio.
	tap *transport.Tap
}

type pendingReq struct {
	method   string
	cacheKey string // "" when the result must not be cached
	start    time.Time
}

// bigResultStubs are what the SDK decodes instead of a large result. Only
// results mcpc prints without reading them through the SDK qualify.
// (A switch, not a map: nothing is made at init.)
func bigResultStubs(method string) (string, bool) {
	switch method {
	case "tools/call":
		return `{"content":[]}`, true
	case "resources/read":
		return `{"contents":[]}`, true
	case "prompts/get":
		return `{"messages":[]}`, true
	}
	return "", false
}

// lists are the tables of listkind.Kinds the wire reads, made once, when
// first read (mcpc --version reads none of them):
//   - cacheable: the results 2026-07-28 servers may mark with ttlMs, by
//     method, and the name each is cached under ("WORD-list");
//   - changed: the cache entries a list_changed notification makes stale:
//     every list its capability declares (a resources list_changed, the
//     resource templates too);
//   - items: the key of each list result's array.
var lists = sync.OnceValue(func() (t struct {
	cacheable, items map[string]string
	changed          map[string][]string
}) {
	t.cacheable = map[string]string{"resources/read": "resources-read"}
	t.items, t.changed = map[string]string{}, map[string][]string{}
	for _, k := range listkind.Kinds {
		t.cacheable[k.Method] = k.Word + "-list"
		t.items[k.Method] = k.Key
		n := "notifications/" + k.Capability + "/list_changed"
		t.changed[n] = append(t.changed[n], k.Word+"-list")
	}
	return t
})

func newWire() *wire {
	w := &wire{pending: map[string]pendingReq{}, big: map[string]json.RawMessage{}, results: map[string][]json.RawMessage{}}
	w.tap = transport.NewTap(w)
	return w
}

func (w *wire) trace(format string, args ...any) {
	if w.verbose != nil {
		w.verbose(fmt.Sprintf(format, args...))
	}
}

// Skip hands a log or progress notification to the connection before it is
// decoded: a chatty server sends thousands (debug logging, progress every
// millisecond), and the SDK would decode each twice, with a large buffer
// each time, and dispatch it on a goroutine of its own. Under --verbose
// every message is traced, so none is skipped.
func (w *wire) Skip(line []byte) bool {
	if w.deliver == nil || w.verbose != nil || !bytes.Contains(line, []byte(`"notifications/`)) {
		return false
	}
	m := rawmsg.Parse(line)
	params, ok := m.Notification(line)
	if !ok || !slices.Contains(delivered, m.Method.Str) || !w.deliver(m.Method.Str, params) {
		return false
	}
	if w.activity != nil {
		w.activity()
	}
	return true
}

// delivered are the notifications Skip hands to deliver.
var delivered = []string{"notifications/message", "notifications/progress", holdwire.Dropped}

// Verbose is --verbose's line writer, nil when it is off.
func (w *wire) Verbose() func(line string) { return w.verbose }

// Refused keeps what server/discover was answered with when that was not
// a result: under a 2026-07-28 pin, the SDK's fallback to initialize is
// refused (Outgoing), and the refusal names it (pinRefusal).
func (w *wire) Refused(call *jsonrpc.Request, e *transport.HTTPError) {
	if call.Method == "server/discover" {
		w.mu.Lock()
		w.discoverHTTP = e
		w.mu.Unlock()
	}
}

// errInitRefused is what the SDK sees when it tries to fall back to
// initialize under a 2026-07-28 pin; Connect reports the pin instead.
var errInitRefused = errors.New("initialize refused: protocol 2026-07-28 is pinned")

// Outgoing sees a message the SDK sends. It may rewrite a request's params
// (trace context), or answer it locally: then the returned response goes
// back to the SDK and nothing is sent.
func (w *wire) Outgoing(msg jsonrpc.Message) (*jsonrpc.Response, error) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil, nil
	}
	if !req.ID.IsValid() {
		w.trace("→ %s (notification)", req.Method)
		return nil, nil
	}
	if req.Method == "initialize" && w.pinModern {
		w.mu.Lock()
		w.refusedInit = true
		w.mu.Unlock()
		return nil, errInitRefused
	}
	if len(w.meta) > 0 {
		if p, err := WithMeta(req.Params, w.meta); err == nil {
			req.Params = p
		}
	}
	w.tasks.augment(req)
	// The SDK's handshake only: mcpc's own server/discover (mcpc ping) is
	// the server's to answer.
	if req.Method == "server/discover" && w.discover != nil && !transport.OwnID(req.ID) {
		w.trace("← server/discover answered from the era memo")
		return w.local(req, w.discover), nil
	}
	p := pendingReq{method: req.Method, start: time.Now()}
	if prefix, ok := lists().cacheable[req.Method]; ok && w.memo != nil && !IsRetry(req.Params) {
		p.cacheKey = prefix + "-" + ParamsKey(req.Params)
		if !w.noCache {
			for _, k := range []string{p.cacheKey, p.cacheKey + "-" + w.credKey} {
				if res := w.memo.Cached(w.serverKey, k); res != nil {
					w.trace("← %s answered from the cache (fresh)", req.Method)
					return w.local(req, res), nil
				}
			}
			w.trace("cache miss: %s", req.Method)
		}
	}
	w.mu.Lock()
	w.pending[transport.IDKey(req.ID)] = p
	w.mu.Unlock()
	w.trace("→ %s id=%v", req.Method, req.ID.Raw())
	return nil, nil
}

// local records a locally answered request's result as if it had arrived.
func (w *wire) local(req *jsonrpc.Request, result json.RawMessage) *jsonrpc.Response {
	w.mu.Lock()
	w.results[req.Method] = append(w.results[req.Method], result)
	sdk := w.listForSDK(req.Method, result)
	w.mu.Unlock()
	return &jsonrpc.Response{ID: req.ID, Result: sdk}
}

// listForSDK is the list result the SDK decodes: with w.keep set, only the
// items it keeps, every other field as it came (nextCursor among them, so
// the SDK still pages). mcpc reads lists from the raw pages; the SDK
// decodes every tool it is given, schemas and all, and re-encodes each
// schema to check it, which for a 30 MB list of 200,000 tools took
// seconds and most of a gigabyte. w.mu is held.
func (w *wire) listForSDK(method string, result json.RawMessage) json.RawMessage {
	key, ok := lists().items[method]
	if !ok || w.keep == nil {
		return result
	}
	return listpages.Keep(result, key, func(name string) bool { return w.keep(method, name) })
}

// Incoming sees a message from the server before the SDK does.
func (w *wire) Incoming(msg jsonrpc.Message) {
	if w.activity != nil {
		w.activity()
	}
	switch m := msg.(type) {
	case *jsonrpc.Request:
		for _, prefix := range lists().changed[m.Method] {
			if w.memo != nil {
				w.memo.Invalidate(w.serverKey, prefix)
			}
		}
		w.trace("← %s", m.Method)
		if m.Method == holdwire.Dropped && w.deliver != nil {
			w.deliver(m.Method, m.Params) // not skipped under --verbose
		}
	case *jsonrpc.Response:
		w.mu.Lock()
		p, ok := w.pending[transport.IDKey(m.ID)]
		delete(w.pending, transport.IDKey(m.ID))
		if !ok {
			stray := fmt.Sprint(m.ID.Raw())
			if id, isString := m.ID.Raw().(string); isString {
				stray = fmt.Sprintf("%q", id)
			}
			w.stray = stray
			w.mu.Unlock()
			w.trace("← a response to id %s, which mcpc never sent: ignored", stray)
			return
		}
		var rpcErr *jsonrpc.Error
		result := m.Result
		if m.Error != nil {
			errors.As(m.Error, &rpcErr)
			if p.method == "server/discover" {
				w.discoverErr = rpcErr
			}
		} else {
			if raw, ok := w.big[transport.IDKey(m.ID)]; ok {
				// Frame kept the result and the SDK decodes a stub.
				delete(w.big, transport.IDKey(m.ID))
				result = raw
			}
			w.results[p.method] = append(w.results[p.method], result)
			if p.method == "server/discover" {
				w.lastDiscover = result
			}
		}
		w.mu.Unlock()
		elapsed := time.Since(p.start).Round(100 * time.Microsecond)
		if m.Error != nil {
			w.trace("← %s id=%v error %v (%s)", p.method, m.ID.Raw(), m.Error, elapsed)
			return
		}
		w.trace("← %s id=%v result, %d bytes (%s)", p.method, m.ID.Raw(), len(result), elapsed)
		if p.cacheKey != "" {
			w.store(p, result)
		}
	}
}

// Frame sees every large message from the server as bytes (and every one
// while a list is being cut down: see listForSDK), before it is decoded.
// A large result (over transport.BigMessage) of a request in
// bigResultStubs is kept here, raw and once, and Frame returns the small
// message the SDK decodes instead: mcpc prints from the raw bytes, and the
// SDK's decoder would cost several copies of the result. A list page is
// kept the same way, and the SDK gets the items w.keep keeps. Any other
// message comes back unchanged. (Never an input_required result: the
// SDK's types carry its questions to the code that answers them.) data
// must be valid JSON and is not copied: the caller must not reuse it.
func (w *wire) Frame(data []byte) []byte {
	top := rawmsg.Parse(data)
	id, res := top.ID, top.Result
	if top.Other || top.Method.Exists() || top.Error.Exists() || top.Version.Str != "2.0" || !res.Exists() || res.Index <= 0 || !(id.Type == gjson.Number || id.Type == gjson.String) {
		return data
	}
	stub := func(result string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + id.Raw + `,"result":` + result + "}")
	}
	msg, err := jsonrpc.DecodeMessage(stub("null"))
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok {
		return data
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	key := transport.IDKey(resp.ID)
	p, ok := w.pending[key]
	if !ok {
		return data
	}
	raw := json.RawMessage(data[res.Index : res.Index+len(res.Raw) : res.Index+len(res.Raw)])
	if _, list := lists().items[p.method]; list && w.keep != nil {
		w.big[key] = raw
		return stub(string(w.listForSDK(p.method, raw)))
	}
	small, ok := bigResultStubs(p.method)
	if len(data) <= transport.BigMessage {
		return data
	}
	if rt := gjson.Get(res.Raw, "resultType"); !ok || (rt.Exists() && rt.String() != "complete") {
		return data
	}
	w.big[key] = raw
	return stub(small)
}

// strayID is the id of the last response that answered no request of
// mcpc's, or "".
func (w *wire) strayID() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stray
}

// store keeps a result the server marked fresh for a while; private ones
// only under the credential that fetched them.
func (w *wire) store(p pendingReq, res json.RawMessage) {
	// Read where it lies: GetManyBytes would copy a 30 MB list to read
	// three fields.
	r := gjson.GetMany(rawmsg.View(res).Raw, "ttlMs", "cacheScope", "resultType")
	ttl, scope, rt := r[0].Int(), r[1].String(), r[2].String()
	if ttl <= 0 || (rt != "" && rt != "complete") {
		return
	}
	key := p.cacheKey
	if scope == "private" {
		key += "-" + w.credKey
	}
	w.memo.Store(w.serverKey, key, ttl, res)
	w.trace("cached %s for %dms (%s)", p.method, ttl, cmp.Or(scope, "public"))
}

// Results returns the raw results of method received so far, in order, and
// forgets them.
func (w *wire) Results(method string) []json.RawMessage {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.results[method]
	delete(w.results, method)
	return r
}

// IsRetry reports whether params answer a server's input request: such
// retries are never cached (SPEC-NOTES, cache hints).
func IsRetry(params json.RawMessage) bool {
	r := gjson.GetMany(rawmsg.View(params).Raw, "inputResponses", "requestState")
	return r[0].Exists() || r[1].Exists()
}

// ParamsKey identifies the params that shape a result (cursor, uri, …):
// everything but _meta, in a canonical form.
func ParamsKey(params json.RawMessage) string {
	var m map[string]any
	if len(params) > 0 {
		json.Unmarshal(params, &m)
	}
	delete(m, "_meta")
	if len(m) == 0 {
		return state.HashKey("")
	}
	b, _ := json.Marshal(m) // map keys marshal sorted
	return state.HashKey(string(b))
}

// WithMeta returns params with keys added to its _meta object, leaving
// every other byte as the SDK wrote it.
func WithMeta(params json.RawMessage, add map[string]string) (json.RawMessage, error) {
	var top map[string]json.RawMessage
	if len(bytes.TrimSpace(params)) == 0 || string(params) == "null" {
		top = map[string]json.RawMessage{}
	} else if err := json.Unmarshal(params, &top); err != nil {
		return nil, err
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := top["_meta"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(add)) {
		v, _ := json.Marshal(add[k])
		meta[k] = v
	}
	mb, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	top["_meta"] = mb
	return json.Marshal(top)
}
