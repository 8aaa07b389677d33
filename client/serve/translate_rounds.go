package serve

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// A 2026-07-28 server asks for input in its answer (input_required, the
// multi-round-trip): a 2025 client is asked the same as the server's own
// questions (elicitation/create, sampling/createMessage, roots/list), one
// at a time in the order of their keys, and the request is sent again
// with a new id, the answers and the requestState echoed, until the
// answer is complete — within bounds, as mcpc's own rounds are
// (client/input).
const (
	maxTranslatedRounds = 8  // rounds of questions for one request
	maxTranslatedBusy   = 10 // input_required with nothing to answer
	translatedBusyPause = 100 * time.Millisecond
)

// inputRound is a 2025 client's request that may take input rounds.
type inputRound struct {
	req    *jsonrpc.Request // as first sent on: its params are each retry's
	client jsonrpc.ID       // the client's id for it
	now    jsonrpc.ID       // the id it is in flight under
	rounds int
	busy   int
}

// watch notes a 2025 client's request whose answer may ask for input.
func (t *translation) watch(r *jsonrpc.Request, sent *jsonrpc.Request) {
	switch r.Method {
	case "tools/call", "prompts/get", "resources/read":
	default:
		return
	}
	t.mu.Lock()
	t.rounds[transport.IDKey(r.ID)] = &inputRound{req: sent, client: r.ID, now: r.ID}
	t.mu.Unlock()
}

// inputRequired takes the server's answer to a watched request: an
// input_required one is answered by asking the client (it reports true),
// a retry's final answer goes to the client under the client's id.
func (t *translation) inputRequired(v *jsonrpc.Response) bool {
	key := transport.IDKey(v.ID)
	t.mu.Lock()
	rd := t.rounds[key]
	delete(t.rounds, key)
	t.mu.Unlock()
	if rd == nil {
		return false
	}
	if v.Error != nil || rawmsg.View(v.Result).Get("resultType").String() != "input_required" {
		if key == transport.IDKey(rd.client) {
			return false
		}
		t.toClient(&jsonrpc.Response{ID: rd.client, Result: v.Result, Error: v.Error})
		return true
	}
	go t.round(rd, rawmsg.View(v.Result))
	return true
}

// round answers one input_required answer: asks the client, or waits a
// little when there is nothing to ask, and sends the request again.
func (t *translation) round(rd *inputRound, res gjson.Result) {
	answers, rpcErr := t.fulfil(rd, res)
	if rpcErr != nil {
		t.toClient(&jsonrpc.Response{ID: rd.client, Error: rpcErr})
		return
	}
	params := setParam(rd.req.Params, "inputResponses", nil)
	if len(answers) > 0 {
		params = setParam(params, "inputResponses", answers)
	}
	params = setParam(params, "requestState", nil)
	if st := res.Get("requestState"); st.Type == gjson.String {
		params = setParam(params, "requestState", st.Str)
	}
	t.mu.Lock()
	t.seq++
	rd.now, _ = jsonrpc.MakeID(fmt.Sprintf("serve-tr-in-%d", t.seq))
	t.rounds[transport.IDKey(rd.now)] = rd
	t.mu.Unlock()
	if t.l.Send(&jsonrpc.Request{ID: rd.now, Method: rd.req.Method, Params: params}) != nil {
		t.toClient(&jsonrpc.Response{ID: rd.client, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("%s went away", t.name)}})
	}
}

// fulfil is the client's answers to one round's input requests.
func (t *translation) fulfil(rd *inputRound, res gjson.Result) (map[string]json.RawMessage, *jsonrpc.Error) {
	reqs := res.Get("inputRequests").Map()
	if len(reqs) == 0 {
		// Load shedding: nothing to answer, only "try again".
		if rd.busy++; rd.busy > maxTranslatedBusy {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: fmt.Sprintf("%s was still busy (input_required with nothing to answer) after %d retries", t.name, maxTranslatedBusy)}
		}
		select {
		case <-time.After(time.Duration(rd.busy) * translatedBusyPause):
		case <-t.done:
		}
		return nil, nil
	}
	if rd.rounds++; rd.rounds > maxTranslatedRounds {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("%s still asked for input after %d rounds of answers", t.name, maxTranslatedRounds)}
	}
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	answers := map[string]json.RawMessage{}
	for _, k := range keys {
		q := reqs[k]
		method, params := q.Get("method").String(), q.Get("params")
		switch method {
		case "elicitation/create", "sampling/createMessage", "roots/list":
		default:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: fmt.Sprintf("%s asked for input mcpc serve cannot ask a 2025 client: %q", t.name, method)}
		}
		var p json.RawMessage
		if params.IsObject() {
			p = json.RawMessage(params.Raw)
		}
		r, err := t.askClient(method, p)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		if r.Error != nil {
			return nil, asRPCError(r.Error)
		}
		answers[k] = r.Result
	}
	return answers, nil
}

// askClient asks a 2025 client a question of serve's own and waits for
// its answer.
func (t *translation) askClient(method string, params json.RawMessage) (*jsonrpc.Response, error) {
	t.mu.Lock()
	t.seq++
	id, _ := jsonrpc.MakeID(fmt.Sprintf("serve-tr-q-%d", t.seq))
	w := make(chan *jsonrpc.Response, 1)
	t.asking[transport.IDKey(id)] = w
	t.mu.Unlock()
	t.toClient(&jsonrpc.Request{ID: id, Method: method, Params: params})
	var expired <-chan time.Time
	if t.timeout > 0 {
		timer := time.NewTimer(t.timeout)
		defer timer.Stop()
		expired = timer.C
	}
	select {
	case r := <-w:
		return r, nil
	case <-t.done:
		return nil, t.err
	case <-expired:
		t.mu.Lock()
		delete(t.asking, transport.IDKey(id))
		t.mu.Unlock()
		return nil, fmt.Errorf("the client did not answer %s for %s within %s (mcpc serve --request-timeout)", method, t.name, t.timeout)
	}
}

// answered takes a client's answer to one of serve's questions; it
// reports false for any other answer, which goes on to the server.
func (t *translation) answered(v *jsonrpc.Response) bool {
	key := transport.IDKey(v.ID)
	t.mu.Lock()
	w := t.asking[key]
	delete(t.asking, key)
	t.mu.Unlock()
	if w == nil {
		return false
	}
	w <- v
	return true
}

// cancelled is a client's notifications/cancelled as the server reads
// it: a request the server knows by another id (a 2025 client's request
// sent again, a 2026-07-28 client's retry of a held call) is named by it.
func (t *translation) cancelled(r *jsonrpc.Request) *jsonrpc.Request {
	req := rawmsg.View(r.Params).Get("requestId")
	id, err := jsonrpc.MakeID(req.Value())
	if !req.Exists() || err != nil {
		return r
	}
	key := transport.IDKey(id)
	renamed := func(client, up jsonrpc.ID) *jsonrpc.Request {
		if transport.IDKey(client) == key && transport.IDKey(up) != key {
			return &jsonrpc.Request{Method: r.Method, Params: setParam(r.Params, "requestId", up.Raw())}
		}
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, rd := range t.rounds {
		if c := renamed(rd.client, rd.now); c != nil {
			return c
		}
	}
	for _, mc := range t.calls {
		if c := renamed(mc.client, mc.up); c != nil {
			return c
		}
	}
	return r
}
