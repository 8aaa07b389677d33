package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// volatileMeta are the members of a request's _meta that say nothing of
// what is asked, only of this one asking: the client's own progress
// token (the recorded progress is given the client's in its place) and
// trace context (new for every call). They differ between the recorded
// invocation and the replayed one, so matching leaves them out.
func volatileMeta() []string {
	return []string{"progressToken", "traceparent", "tracestate", "baggage"}
}

// matchKey is a request's params in canonical form, what matching
// compares: members sorted, strings unescaped and quoted again, numbers
// as written, without what is volatile (as matchForm, which it agrees
// with). Made in one walk of the bytes, without decoding: a recording of
// thousands of requests is read in milliseconds.
func matchKey(method string, params []byte) string {
	return string(appendMatchKey(nil, method, params))
}

// appendMatchKey appends matchKey's form to b.
func appendMatchKey(b []byte, method string, params []byte) []byte {
	v := rawmsg.View(params)
	if !v.IsObject() {
		if !v.Exists() || v.Type == gjson.Null {
			return append(b, "{}"...)
		}
		return canon(b, v, keepAll, method)
	}
	return canon(b, v, keyParams, method)
}

// keyStrip says which members canon leaves out of an object.
type keyStrip uint8

const (
	keepAll       keyStrip = iota
	keyParams              // a request's params: see their _meta, initialize's clientInfo
	keyMeta                // params._meta: volatileMeta, see the clientInfo
	keyClientInfo          // a clientInfo: its version
)

// canon appends v's canonical form to b.
func canon(b []byte, v gjson.Result, s keyStrip, method string) []byte {
	switch {
	case v.IsObject():
		// Most objects have a few members: they are kept on the stack.
		var small [8]member
		ms := small[:0]
		v.ForEach(func(k, x gjson.Result) bool {
			ms = append(ms, member{k.Str, x})
			return true
		})
		if !slices.IsSortedFunc(ms, compareMembers) {
			slices.SortStableFunc(ms, compareMembers)
		}
		b = append(b, '{')
		n := 0
		for _, m := range ms {
			child := keepAll
			switch {
			case s == keyParams && m.k == "_meta":
				child = keyMeta
			case s == keyParams && m.k == "clientInfo" && method == "initialize",
				s == keyMeta && m.k == "io.modelcontextprotocol/clientInfo":
				child = keyClientInfo
			case s == keyMeta && slices.Contains(volatileMeta(), m.k), s == keyClientInfo && m.k == "version":
				continue
			}
			mark := len(b)
			if n > 0 {
				b = append(b, ',')
			}
			b = append(quote(b, m.k), ':')
			at := len(b)
			b = canon(b, m.v, child, method)
			if child == keyMeta && string(b[at:]) == "{}" {
				b = b[:mark] // a _meta of nothing but what is volatile
				continue
			}
			n++
		}
		return append(b, '}')
	case v.IsArray():
		b = append(b, '[')
		i := 0
		v.ForEach(func(_, x gjson.Result) bool {
			if i > 0 {
				b = append(b, ',')
			}
			i++
			b = canon(b, x, keepAll, method)
			return true
		})
		return append(b, ']')
	case v.Type == gjson.String:
		return quote(b, v.Str)
	}
	return append(b, v.Raw...)
}

// member is an object's member, as canon sorts them.
type member struct {
	k string
	v gjson.Result
}

func compareMembers(a, b member) int { return strings.Compare(a.k, b.k) }

// quote is strconv.AppendQuote, without its work for the usual string
// (printable ASCII, no quote or backslash), which it leaves as it is.
func quote(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// matchForm is a request's params (or an answer) as they are matched:
// decoded, numbers as written, without what is volatile: volatileMeta,
// and the client's version in its clientInfo (initialize's, and the
// _meta one of 2026-07-28), since a CI job's mcpc may be newer than the
// one that recorded. key is its canonical JSON (members sorted): equal
// keys match. No params and {} are the same.
func matchForm(method string, params []byte) (v any, key string, err error) {
	if len(bytes.TrimSpace(params)) == 0 || bytes.Equal(params, []byte("null")) {
		params = []byte("{}")
	}
	d := json.NewDecoder(bytes.NewReader(params))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, "", err
	}
	if obj, ok := v.(map[string]any); ok {
		if meta, ok := obj["_meta"].(map[string]any); ok {
			for _, k := range volatileMeta() {
				delete(meta, k)
			}
			dropVersion(meta["io.modelcontextprotocol/clientInfo"])
			if len(meta) == 0 {
				delete(obj, "_meta")
			}
		}
		if method == "initialize" {
			dropVersion(obj["clientInfo"])
		}
	}
	out, err := json.Marshal(v)
	return v, string(out), err
}

func dropVersion(info any) {
	if m, ok := info.(map[string]any); ok {
		delete(m, "version")
	}
}

// answerOf is a recorded answer's result or error, as a client's answer
// is compared with it.
func answerOf(raw []byte) []byte {
	m := rawmsg.Parse(raw)
	if m.Error.Exists() {
		return []byte(`{"error":` + m.Error.Raw + `}`)
	}
	return []byte(`{"result":` + m.Result.Raw + `}`)
}

// find is the exchange that answers a request of method with params in
// match form v and key, marked used; or the JSON-RPC error that says
// why there is none. --order match takes the first unused exchange that
// matches, in the file's order, else the last used one that does (a
// client that polls tasks/get more often than the recorded one did);
// --order strict the next unused one, or again the one answered last (a
// poll again).
func (p *Replay) find(method string, params json.RawMessage) (*exchange, *jsonrpc.Error) {
	key := matchKey(method, params)
	// The params decoded, only for a request that misses.
	v := func() any {
		v, _, _ := matchForm(method, params)
		return v
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Strict {
		if p.last != nil && p.last.method == method && p.last.key == key {
			return p.last, nil
		}
		for p.next < len(p.exchanges) && p.exchanges[p.next].used {
			p.next++
		}
		if p.next < len(p.exchanges) {
			ex := p.exchanges[p.next]
			if ex.method == method && ex.key == key {
				ex.used, p.last = true, ex
				return ex, nil
			}
			p.unmatched++
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s has no answer for this %s: --order strict: the next recorded request (line %d) is %s",
				p.Label(), method, ex.line, p.describe(ex, method, v()))}
		}
	} else {
		var last *exchange
		for ex := p.byKey[method+"\n"+key]; ex != nil; ex = ex.sameKey {
			if !ex.used {
				ex.used, p.last = true, ex
				return ex, nil
			}
			last = ex
		}
		if last != nil {
			p.last = last
			return last, nil
		}
	}
	return nil, p.miss(method, v)
}

// miss is the error for a request no exchange answers, counted, naming
// the closest recorded request: of the same method, with the fewest
// members that differ. A method the recording has none of is "method
// not found", as a server that has no such method answers; a ping and,
// to a recording of a 2025 server, a server/discover are answered so
// too, uncounted, since the recorded server would have.
func (p *Replay) miss(method string, params func() any) *jsonrpc.Error {
	same := p.byMethod[method]
	if len(same) == 0 {
		if !(method == "server/discover" && p.legacy) {
			p.unmatched++
		}
		return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("method not found: %s has no %s request", p.Label(), method)}
	}
	p.unmatched++
	v := params()
	best, bestN := same[0], -1
	for _, ex := range same {
		if n := len(differ(p.paramsOf(ex), v, "params", nil)); bestN < 0 || n < bestN {
			best, bestN = ex, n
		}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s has no answer for this %s: the closest recorded request (line %d) %s",
		p.Label(), method, best.line, p.describe(best, method, v))}
}

// describe says how the recorded exchange ex differs from a request of
// method with params v.
func (p *Replay) describe(ex *exchange, method string, v any) string {
	if ex.method != method {
		return ex.method
	}
	d := differ(p.paramsOf(ex), v, "params", nil)
	switch len(d) {
	case 0:
		return "matched an earlier request, and --order strict answers each once"
	case 1:
		return "differs in " + d[0]
	}
	return fmt.Sprintf("differs in %s and %d more", d[0], len(d)-1)
}

// differ lists the paths at which a and b differ, in order.
func differ(a, b any, path string, out []string) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := make([]string, 0, len(am)+len(bm))
		for k := range am {
			keys = append(keys, k)
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = differ(am[k], bm[k], path+"."+pathKey(k), out)
		}
		return out
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		for i := range as {
			out = differ(as[i], bs[i], path+"["+strconv.Itoa(i)+"]", out)
		}
		return out
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		out = append(out, path)
	}
	return out
}

// pathKey is k as a path's step: as it is when it is a plain name,
// quoted otherwise.
func pathKey(k string) string {
	if k != "" && strings.IndexFunc(k, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return k
	}
	return strconv.Quote(k)
}
