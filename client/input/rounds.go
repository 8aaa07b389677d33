//lint:file-ignore SA1019 logging, sampling and roots are deprecated in 2026-07-28, yet 2025 servers use them: mcpc shows the logs and refuses the rest

package input

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// Rounds runs each of mcpc's requests, and on 2026-07-28 answers
// input_required results: it fulfils the input requests, in a stable order
// and one at a time (a person may be answering), and sends the request
// again with a new id, the answers, and the requestState echoed exactly.
func (st *State) Rounds(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		// (A subscriptions/listen's stream outlives the send, which an
		// ended request's context would cancel.)
		if strings.HasPrefix(method, "notifications/") || method == "server/discover" || method == "initialize" || method == "subscriptions/listen" {
			return next(ctx, method, req)
		}
		ctx, end := st.begin(ctx)
		var res mcp.Result
		var err error
		switch method {
		case "tools/call", "prompts/get", "resources/read":
			for try := 0; ; try++ {
				res, err = st.rounds(ctx, method, req, next)
				urls := urlsRequired(err)
				if urls == nil || try == maxURLRounds || !st.In.OffersElicitation() {
					break
				}
				if err = st.openURLs(ctx, urls); err != nil {
					break
				}
			}
		default:
			res, err = next(ctx, method, req)
		}
		if f := end(); f != nil {
			return nil, f
		}
		return res, err
	}
}

func (st *State) rounds(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (mcp.Result, error) {
	if st.Modern() && st.In != nil && st.In.Log != nil {
		setLogLevel(req.GetParams(), st.Level())
	}
	rounds, busy := 0, 0
	for {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		// The server answered in this era: whatever goes wrong with the
		// answers from here on is no reason to doubt a remembered verdict
		// (and to ask the same questions again on a new connection).
		if st.Verified != nil {
			st.Verified()
		}
		requests, state, more, err := st.inputRequired(method, res)
		if err != nil || !more {
			return res, err
		}
		var answers mcp.InputResponseMap
		if len(requests) == 0 {
			// Load shedding: nothing to answer, only "try again".
			if busy++; busy > maxBusyRounds {
				return nil, fail.New(fail.Protocol, "try again later",
					"%s was still busy (input_required with nothing to answer) after %d retries", st.Label, maxBusyRounds)
			}
			if err := sleep(ctx, time.Duration(busy)*busyPause); err != nil {
				return nil, err
			}
		} else {
			if rounds++; rounds > maxInputRounds {
				return nil, fail.New(fail.Protocol, "the server seems to ask in a loop; check the answers given, or report it to the server's authors",
					"%s still asked for input after %d rounds of answers", st.Label, maxInputRounds)
			}
			if answers, err = st.Fulfil(ctx, requests); err != nil {
				return nil, err
			}
		}
		if req, err = retry(req, answers, state); err != nil {
			return nil, err
		}
	}
}

// maxURLRounds bounds how often a request is sent again after the server
// answered that a URL must be visited first (-32042).
var maxURLRounds = 3

// urlsRequired returns the URL elicitations of a URLElicitationRequired
// error (-32042), or nil.
func urlsRequired(err error) []*mcp.ElicitParams {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != mcp.CodeURLElicitationRequired {
		return nil
	}
	var data struct {
		Elicitations []*mcp.ElicitParams `json:"elicitations"`
	}
	if json.Unmarshal(rpc.Data, &data) != nil || len(data.Elicitations) == 0 {
		return nil
	}
	for _, p := range data.Elicitations {
		if p == nil || p.URL == "" {
			return nil
		}
		p.Mode = "url"
	}
	return data.Elicitations
}

// openURLs answers a 2025 server's "visit these URLs first": each is shown
// and accepted as any URL elicitation is, and then, unless a person said
// they have been there, mcpc waits for the server's
// notifications/elicitation/complete within the invocation's bound,
// before the request is sent again.
func (st *State) openURLs(ctx context.Context, urls []*mcp.ElicitParams) error {
	var waits []chan struct{}
	for _, p := range urls {
		ch := st.await(p.ElicitationID)
		defer st.forget(p.ElicitationID)
		waits = append(waits, ch)
	}
	for _, p := range urls {
		res, err := st.In.Elicit(ctx, st.Label, p)
		if err != nil {
			return err
		}
		if res.Action != "accept" {
			return fail.New(fail.Rejected, "open the URL, then run mcpc again; or pass --yes to have mcpc wait until the server sees it done",
				"%s cannot answer until its URL is visited", st.Label)
		}
	}
	if st.In.Interactive {
		return nil
	}
	st.Note(fmt.Sprintf("waiting for %s to see the URL visited (--timeout bounds the wait)", st.Label))
	for _, ch := range waits {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-ch:
		}
	}
	return nil
}

// inputRequired reads a result: more is true for input_required. A result
// without resultType is complete; one with a type mcpc does not know is
// not a result it can use.
func (st *State) inputRequired(method string, res mcp.Result) (requests mcp.InputRequestMap, state string, more bool, err error) {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		requests, state, more = r.InputRequests, r.RequestState, r.NeedsInput()
	case *mcp.GetPromptResult:
		requests, state, more = r.InputRequests, r.RequestState, r.NeedsInput()
	case *mcp.ReadResourceResult:
		requests, state, more = r.InputRequests, r.RequestState, r.NeedsInput()
	default:
		return nil, "", false, nil
	}
	if more {
		return requests, state, true, nil
	}
	// The SDK keeps resultType to itself; its encoding shows it.
	var probe struct {
		ResultType string `json:"resultType"`
	}
	if b, e := json.Marshal(res); e == nil && json.Unmarshal(b, &probe) == nil &&
		probe.ResultType != "" && probe.ResultType != "complete" && !(probe.ResultType == "task" && method == "tools/call") {
		return nil, "", false, fail.New(fail.Protocol, "", "%s sent a result of unknown resultType %q", st.Label, probe.ResultType)
	}
	return nil, "", false, nil
}

// Fulfil answers one round's input requests, in the order of their keys.
func (st *State) Fulfil(ctx context.Context, requests mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	out := mcp.InputResponseMap{}
	for _, key := range slices.Sorted(maps.Keys(requests)) {
		switch p := requests[key].(type) {
		case *mcp.ElicitParams:
			if !st.In.OffersElicitation() {
				return nil, st.unoffered("elicitation")
			}
			res, err := st.In.Elicit(ctx, st.Label, p)
			if err != nil {
				return nil, err
			}
			out[key] = res
		case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
			return nil, st.unoffered(unoffered["sampling/createMessage"])
		case *mcp.ListRootsParams:
			return nil, st.unoffered(unoffered["roots/list"])
		default:
			return nil, fail.New(fail.Protocol, "", "%s asked for input of an unknown kind (%T)", st.Label, p)
		}
	}
	return out, nil
}

func (st *State) unoffered(what string) error {
	return fail.New(fail.Protocol, "the server should not ask a client for what it did not offer",
		"%s asked for %s, which mcpc did not offer", st.Label, what)
}

// retry is the next round's request: a copy of the original params (never
// changed, so nothing leaks into another request) with this round's
// answers and the server's requestState exactly as sent, or none.
func retry(req mcp.Request, answers mcp.InputResponseMap, state string) (mcp.Request, error) {
	cs, _ := req.GetSession().(*mcp.ClientSession)
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParams:
		cp := *p
		cp.InputResponses, cp.RequestState = answers, state
		return &mcp.ClientRequest[*mcp.CallToolParams]{Session: cs, Params: &cp}, nil
	case *mcp.GetPromptParams:
		cp := *p
		cp.InputResponses, cp.RequestState = answers, state
		return &mcp.ClientRequest[*mcp.GetPromptParams]{Session: cs, Params: &cp}, nil
	case *mcp.ReadResourceParams:
		cp := *p
		cp.InputResponses, cp.RequestState = answers, state
		return &mcp.ClientRequest[*mcp.ReadResourceParams]{Session: cs, Params: &cp}, nil
	}
	return nil, fmt.Errorf("cannot retry a request with params %T", req.GetParams())
}

// setLogLevel asks a 2026-07-28 server for log messages at level and above
// (the per-request level; without it such a server sends none).
func setLogLevel(p mcp.Params, level string) {
	if p == nil {
		return
	}
	m := p.GetMeta()
	if m == nil {
		m = map[string]any{}
	}
	m[mcp.MetaKeyLogLevel] = level
	p.SetMeta(m)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
