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

// A 2025 server's question (elicitation/create, sampling/createMessage,
// roots/list) during a 2026-07-28 client's call, on a line that lasts
// (stdio): the call is answered input_required, the question its one
// input request under serve's requestState, and the server's request is
// held; the client's retry, which carries the answer, answers the
// question, and the server's answer to the call reaches the client as the
// retry's. On a stateless HTTP request's line, which ends with its
// answer (and the server's request with it), the question is refused.

// statePrefix marks serve's requestStates: a retry naming one resumes a
// held call.
const statePrefix = "mcpc-serve-ask-"

// modernCall is a 2026-07-28 client's call on a 2025 server, on a line
// that lasts.
type modernCall struct {
	up     jsonrpc.ID       // the id the server knows it by
	client jsonrpc.ID       // the id the client waits on now
	caps   gjson.Result     // the client's capabilities (its _meta)
	q      *jsonrpc.Request // the server's question the client is asked, until its retry
	token  string           // that question's requestState
	answer *jsonrpc.Response
}

// questionCaps is the client capability each question needs.
func questionCap(method string) string {
	switch method {
	case "elicitation/create":
		return "elicitation"
	case "sampling/createMessage":
		return "sampling"
	case "roots/list":
		return "roots"
	}
	return ""
}

// held takes a 2026-07-28 client's call, or its retry: it reports true
// when serve answers it (a retry, or a requestState of serve's it does
// not know), false when it goes on.
func (t *translation) held(r *jsonrpc.Request) bool {
	switch r.Method {
	case "tools/call", "prompts/get", "resources/read":
	default:
		return false
	}
	params := rawmsg.View(r.Params)
	if st := params.Get("requestState"); st.Type == gjson.String && strings.HasPrefix(st.Str, statePrefix) {
		t.resume(r, st.Str, params.Get("inputResponses.q"))
		return true
	}
	if t.lasting {
		caps := params.Get("_meta." + gjson.Escape(metaPrefix+"clientCapabilities"))
		t.mu.Lock()
		t.calls[transport.IDKey(r.ID)] = &modernCall{up: r.ID, client: r.ID, caps: caps}
		t.mu.Unlock()
	}
	return false
}

// resume answers the server's question held under token with answer,
// and waits for the server's answer to the call on the retry's id.
func (t *translation) resume(r *jsonrpc.Request, token string, answer gjson.Result) {
	t.mu.Lock()
	c := t.states[token]
	delete(t.states, token)
	var q *jsonrpc.Request
	var done *jsonrpc.Response
	if c != nil {
		q, c.q, c.client = c.q, nil, r.ID
		if done, c.answer = c.answer, nil; done != nil {
			delete(t.calls, transport.IDKey(c.up))
		}
	}
	t.mu.Unlock()
	if c == nil {
		t.toClient(&jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("%s: requestState %q names no question of the server's that mcpc serve holds (the request it answers ended)", t.name, token)}})
		return
	}
	if answer.IsObject() {
		t.l.Send(&jsonrpc.Response{ID: q.ID, Result: json.RawMessage(answer.Raw)})
	} else {
		t.l.Send(&jsonrpc.Response{ID: q.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: "the client answered without inputResponses.q"}})
	}
	if done != nil {
		t.toClient(&jsonrpc.Response{ID: r.ID, Result: done.Result, Error: done.Error})
	}
}

// callAnswered takes the server's answer to a held call: it reports true
// when serve passes it on itself (under the id the client waits on), or
// keeps it for the retry of a call whose question is out.
func (t *translation) callAnswered(v *jsonrpc.Response) bool {
	key := transport.IDKey(v.ID)
	t.mu.Lock()
	c := t.calls[key]
	switch {
	case c == nil:
		t.mu.Unlock()
		return false
	case c.q != nil:
		c.answer = v // the retry takes it
		t.mu.Unlock()
		return true
	}
	delete(t.calls, key)
	t.mu.Unlock()
	if transport.IDKey(c.client) == key {
		return false
	}
	t.toClient(&jsonrpc.Response{ID: c.client, Result: v.Result, Error: v.Error})
	return true
}

// askInResult asks a 2026-07-28 client the server's question r in the
// answer to its one call in flight; it reports false when it cannot (no
// such call, several, or a capability the client did not declare).
func (t *translation) askInResult(r *jsonrpc.Request) bool {
	capName := questionCap(r.Method)
	if capName == "" || !t.lasting {
		return false
	}
	t.mu.Lock()
	var c *modernCall
	n := 0
	for _, k := range t.calls {
		if k.q == nil {
			c = k
			n++
		}
	}
	if n != 1 || !c.caps.Get(gjson.Escape(capName)).Exists() {
		t.mu.Unlock()
		return false
	}
	t.seq++
	c.q, c.token = r, fmt.Sprintf("%s%d", statePrefix, t.seq)
	t.states[c.token] = c
	id := c.client
	t.mu.Unlock()
	req := map[string]any{"method": r.Method}
	if p := rawmsg.View(r.Params); p.IsObject() {
		req["params"] = json.RawMessage(p.Raw)
	}
	res, _ := json.Marshal(map[string]any{"resultType": "input_required",
		"inputRequests": map[string]any{"q": req}, "requestState": c.token})
	t.toClient(&jsonrpc.Response{ID: id, Result: res})
	return true
}
