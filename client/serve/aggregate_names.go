package serve

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// maxAggregatePages bounds the pages serve reads of one server's list.
const maxAggregatePages = 100

// setParam is params (an object, or nothing) with key set to v.
func setParam(params json.RawMessage, key string, v any) json.RawMessage {
	obj := map[string]json.RawMessage{}
	json.Unmarshal(params, &obj)
	if v == nil {
		delete(obj, key)
	} else {
		obj[key], _ = json.Marshal(v)
	}
	out, _ := json.Marshal(obj)
	return out
}

// metaOnly is params with nothing but their _meta: what a request of
// serve's own made for a client carries of the client's (a 2026-07-28
// client's revision and capabilities).
func metaOnly(params json.RawMessage) json.RawMessage {
	if m := rawmsg.View(params).Get("_meta"); m.IsObject() {
		return json.RawMessage(`{"_meta":` + m.Raw + `}`)
	}
	return json.RawMessage(`{}`)
}

// handshake is serve's answer to a client's initialize or server/discover:
// each server's, as its holder answers, merged.
func (f *fan) handshake(r *jsonrpc.Request) (json.RawMessage, *jsonrpc.Error) {
	results := f.askAll(r.Method, func(int) json.RawMessage { return r.Params })
	var base map[string]json.RawMessage
	caps := map[string]map[string]any{}
	var instructions []string
	version := ""
	logs := make([]bool, len(results))
	for i, resp := range results {
		if resp.Error != nil {
			return nil, f.serverError(i, resp.Error)
		}
		var res map[string]json.RawMessage
		if json.Unmarshal(resp.Result, &res) != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: f.a.Names[i] + ": an unreadable handshake"}
		}
		if base == nil {
			base = res
		}
		var c map[string]map[string]any
		json.Unmarshal(res["capabilities"], &c)
		_, logs[i] = c["logging"]
		for k, v := range c {
			if caps[k] == nil {
				caps[k] = map[string]any{}
			}
			for kk, vv := range v {
				if b, ok := vv.(bool); !ok || b || caps[k][kk] == nil {
					caps[k][kk] = vv
				}
			}
		}
		var text string
		if json.Unmarshal(res["instructions"], &text) == nil && text != "" {
			instructions = append(instructions, f.a.Names[i]+": "+text)
		}
		var v string
		if json.Unmarshal(res["protocolVersion"], &v) == nil && (version == "" || v < version) {
			version = v // the oldest: what every server speaks
		}
	}
	f.mu.Lock()
	f.logs = logs
	f.mu.Unlock()
	base["capabilities"], _ = json.Marshal(caps)
	base["serverInfo"], _ = json.Marshal(map[string]string{"name": "mcpc serve", "version": f.a.Version})
	delete(base, "instructions")
	if len(instructions) > 0 {
		base["instructions"], _ = json.Marshal(strings.Join(instructions, "\n\n"))
	}
	if version != "" {
		base["protocolVersion"], _ = json.Marshal(version)
	}
	out, _ := json.Marshal(base)
	return out, nil
}

// listKeys are the item arrays of the lists serve merges.
var listKeys = map[string]string{"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources", "resources/templates/list": "resourceTemplates"}

// list is every server's list, each read to its last page, merged into
// one page: names prefixed with their server's, URIs kept (the later of
// two equal ones prefixed). A server that refuses the list has none.
func (f *fan) list(r *jsonrpc.Request) (json.RawMessage, *jsonrpc.Error) {
	key := listKeys[r.Method]
	pages := make([][]json.RawMessage, len(f.links))
	done := make(chan struct{}, len(f.links))
	for i := range f.links {
		go func() {
			defer func() { done <- struct{}{} }()
			params := setParam(r.Params, "cursor", nil)
			for range maxAggregatePages {
				resp, err := f.ask(i, r.Method, params)
				if err != nil || resp.Error != nil {
					return
				}
				view := rawmsg.View(resp.Result)
				view.Get(gjson.Escape(key)).ForEach(func(_, it gjson.Result) bool {
					pages[i] = append(pages[i], json.RawMessage(it.Raw))
					return true
				})
				next := view.Get("nextCursor")
				if next.Type != gjson.String || next.Str == "" {
					return
				}
				params = setParam(r.Params, "cursor", next.Str)
			}
		}()
	}
	for range f.links {
		<-done
	}
	items := []json.RawMessage{}
	for i, page := range pages {
		for _, it := range page {
			items = append(items, f.renamed(i, key, it))
		}
	}
	out, _ := json.Marshal(map[string][]json.RawMessage{key: items})
	return out, nil
}

// renamed is server i's list item as the client sees it.
func (f *fan) renamed(i int, key string, it json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(it, &obj) != nil {
		return it
	}
	switch key {
	case "tools", "prompts":
		var name string
		json.Unmarshal(obj["name"], &name)
		obj["name"], _ = json.Marshal(f.a.Names[i] + f.a.Separator + name)
	case "resources":
		var uri string
		json.Unmarshal(obj["uri"], &uri)
		obj["uri"], _ = json.Marshal(f.clientURI(i, uri))
	default:
		return it
	}
	out, _ := json.Marshal(obj)
	return out
}

// clientURI is server i's resource URI as the client sees it: as it is,
// unless another server listed it first.
func (f *fan) clientURI(i int, uri string) string {
	a := f.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.owner == nil {
		a.owner = map[string]int{}
	}
	if o, ok := a.owner[uri]; ok && o != i {
		a.clash(o, i, uri)
		return resourcePrefix + a.Names[i] + "/" + uri
	}
	a.owner[uri] = i
	return uri
}

// clash tells a.Log, once for each pair of servers, that server i lists
// uri, which server o listed first. Once a pair: a server that copies
// another's thousand resources is one note, not a thousand. a.mu is held.
func (a *Aggregate) clash(o, i int, uri string) {
	if a.Log == nil || a.clashes[[2]int{o, i}] {
		return
	}
	if a.clashes == nil {
		a.clashes = map[[2]int]bool{}
	}
	a.clashes[[2]int{o, i}] = true
	a.Log(fmt.Sprintf("servers %q and %q both list the resource %s (and maybe more): %q's are served as %s%s/URI",
		a.Names[o], a.Names[i], uri, a.Names[i], resourcePrefix, a.Names[i]))
}

// named is the server and the name a client's SERVER__NAME stands for.
func (f *fan) named(name string) (int, string, bool) {
	best, rest := -1, ""
	for i, n := range f.a.Names {
		// The longest server name that fits: servers "a" and "a__b" both
		// prefix "a__b__t", which is a__b's tool t.
		if r, ok := strings.CutPrefix(name, n+f.a.Separator); ok && r != "" && (best < 0 || len(n) > len(f.a.Names[best])) {
			best, rest = i, r
		}
	}
	return best, rest, best >= 0
}

// byName sends a tools/call or prompts/get to the server its name names.
func (f *fan) byName(r *jsonrpc.Request) (json.RawMessage, *jsonrpc.Error) {
	name := rawmsg.View(r.Params).Get("name").String()
	i, rest, ok := f.named(name)
	if !ok {
		what := map[string]string{"tools/call": "tool", "prompts/get": "prompt"}[r.Method]
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("unknown %s %q: served %ss are named SERVER%sNAME, SERVER one of %s", what, name, what, f.a.Separator, strings.Join(f.a.Names, ", "))}
	}
	return f.forward(r, i, setParam(r.Params, "name", rest))
}

// ownerOf is the server a client's resource URI (or template) goes to,
// and the URI as that server names it.
func (f *fan) ownerOf(r *jsonrpc.Request, uri string) (int, string, bool) {
	if rest, ok := strings.CutPrefix(uri, resourcePrefix); ok {
		for i, n := range f.a.Names {
			if raw, ok := strings.CutPrefix(rest, n+"/"); ok {
				return i, raw, true
			}
		}
	}
	for try := range 2 {
		f.a.mu.Lock()
		i, ok := f.a.owner[uri]
		f.a.mu.Unlock()
		if ok {
			return i, uri, true
		}
		if try == 0 {
			// Not listed yet (a stateless client need not list first):
			// the servers' lists say who owns it.
			f.list(&jsonrpc.Request{Method: "resources/list", Params: metaOnly(r.Params)})
		}
	}
	return 0, "", false
}

// byURI sends a request on a resource to the server that listed it.
func (f *fan) byURI(r *jsonrpc.Request, key string) (json.RawMessage, *jsonrpc.Error) {
	uri := rawmsg.View(r.Params).Get(key).String()
	i, raw, ok := f.ownerOf(r, uri)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("unknown resource %q: list the resources first, or name it %sSERVER/URI", uri, resourcePrefix)}
	}
	return f.forward(r, i, setParam(r.Params, key, raw))
}

// complete sends a completion to the server its reference names.
func (f *fan) complete(r *jsonrpc.Request) (json.RawMessage, *jsonrpc.Error) {
	ref := rawmsg.View(r.Params).Get("ref")
	var i int
	var renamed map[string]any
	switch ref.Get("type").String() {
	case "ref/prompt":
		n, rest, ok := f.named(ref.Get("name").String())
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", ref.Get("name").String())}
		}
		i, renamed = n, map[string]any{"type": "ref/prompt", "name": rest}
	case "ref/resource":
		n, raw, ok := f.ownerOf(r, ref.Get("uri").String())
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown resource %q", ref.Get("uri").String())}
		}
		i, renamed = n, map[string]any{"type": "ref/resource", "uri": raw}
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "a completion names a ref/prompt or a ref/resource"}
	}
	return f.forward(r, i, setParam(r.Params, "ref", renamed))
}

// fromServer is server i's answer to a request of the client's it was
// sent, as the client sees it: a resource read names its URIs as listed.
func (f *fan) fromServer(i int, v *jsonrpc.Response) jsonrpc.Message {
	if v.Error != nil || !rawmsg.View(v.Result).Get("contents").IsArray() {
		return v
	}
	var res map[string]json.RawMessage
	var contents []map[string]json.RawMessage
	if json.Unmarshal(v.Result, &res) != nil || json.Unmarshal(res["contents"], &contents) != nil {
		return v
	}
	for _, c := range contents {
		var uri string
		if json.Unmarshal(c["uri"], &uri) == nil && uri != "" {
			c["uri"], _ = json.Marshal(f.clientURI(i, uri))
		}
	}
	res["contents"], _ = json.Marshal(contents)
	out, _ := json.Marshal(res)
	return &jsonrpc.Response{ID: v.ID, Result: out}
}

// notification is server i's notification as the client sees it: a
// resource's update names its URI as listed; a cancellation of a
// question names the question as the client was asked it.
func (f *fan) notification(i int, v *jsonrpc.Request) jsonrpc.Message {
	switch v.Method {
	case "notifications/resources/updated":
		uri := rawmsg.View(v.Params).Get("uri").String()
		return &jsonrpc.Request{Method: v.Method, Params: setParam(v.Params, "uri", f.clientURI(i, uri))}
	case "notifications/cancelled":
		id, err := jsonrpc.MakeID(rawmsg.View(v.Params).Get("requestId").Value())
		if err != nil {
			return nil
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		for key, q := range f.asked {
			if q.server == i && transport.IDKey(q.id) == transport.IDKey(id) {
				delete(f.asked, key)
				return &jsonrpc.Request{Method: v.Method, Params: setParam(v.Params, "requestId", q.client.Raw())}
			}
		}
		return nil
	}
	return v
}
