package testserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The error and retry signals (--signals), served below the SDK, which
// knows none of them, as the drafts word them:
//   - SEP-3304: -32023 RateLimited with data.retryAfterMs (limit,
//     remaining), over HTTP as a 429 with Retry-After;
//   - SEP-3313: a failed result's _meta "io.modelcontextprotocol/toolFailure";
//   - SEP-3182: the tools/call param idempotencyKey, echoed back.
//
// Each tool answers from a count of its calls per "key" argument, so that
// an HTTP server that outlives one invocation serves each test afresh.
const rateLimitedCode = -32023

// signalTools are the tools and what they do; tests pin their answers.
var signalTools = map[string]string{
	"limited": "Refuse the first `times` calls (default 1) of a key with -32023, asking to wait `wait_ms`; then succeed.",
	"flaky":   "Fail the first `fails` calls (default 1) of a key with a toolFailure of `class` and `code`, retryable when `retryable`; then succeed. Idempotent.",
	"charge":  "As flaky, but not idempotent: a client must not retry it.",
	"denied":  "Deny the call with SEP-2643's envelope: `remediation` (default available), an authorization_remediation hint for `detail` when given.",
}

type signalStore struct {
	mu    sync.Mutex
	calls map[string]int // by tool and key
}

func newSignalStore() *signalStore { return &signalStore{calls: map[string]int{}} }

// addSignalTools lists the signal tools with their annotations; their
// calls never reach the SDK (handle answers them).
func addSignalTools(s *mcp.Server) {
	yes, no := true, false
	schema := json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"},"wait_ms":{"type":"number"},"times":{"type":"integer"},"fails":{"type":"integer"},"class":{"type":"string"},"code":{"type":"string"},"retryable":{"type":"boolean"},"remediation":{"type":"string"},"detail":{"type":"string"}}}`)
	for name, desc := range signalTools {
		ann := &mcp.ToolAnnotations{IdempotentHint: name == "flaky", DestructiveHint: &no}
		if name == "charge" {
			ann.DestructiveHint = &yes
		}
		s.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: schema, Annotations: ann},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "answered below the SDK"}
			})
	}
}

type signalArgs struct {
	Key       string   `json:"key"`
	WaitMs    *float64 `json:"wait_ms"`
	Times     *int     `json:"times"`
	Fails     *int     `json:"fails"`
	Class     string   `json:"class"`
	Code      string   `json:"code"`
	Retryable bool     `json:"retryable"`
	// denied's
	Remediation string `json:"remediation"`
	Detail      string `json:"detail"`
}

// handle answers a call of a signal tool; nil for any other request.
func (st *signalStore) handle(req *jsonrpc.Request) *jsonrpc.Response {
	if st == nil || !req.IsCall() || req.Method != "tools/call" {
		return nil
	}
	var p struct {
		Name           string     `json:"name"`
		Arguments      signalArgs `json:"arguments"`
		IdempotencyKey *string    `json:"idempotencyKey"`
	}
	json.Unmarshal(req.Params, &p)
	if _, ok := signalTools[p.Name]; !ok {
		return nil
	}
	a := p.Arguments
	st.mu.Lock()
	st.calls[p.Name+"\x00"+a.Key]++
	n := st.calls[p.Name+"\x00"+a.Key]
	st.mu.Unlock()
	key := "none"
	if p.IdempotencyKey != nil {
		key = strconv.Quote(*p.IdempotencyKey)
	}
	done := fmt.Sprintf("%s %s: done at attempt %d, idempotencyKey %s", p.Name, a.Key, n, key)
	if p.Name == "denied" {
		return reply(req, denial(a, n), nil)
	}
	if p.Name == "limited" {
		if n > orOne(a.Times) {
			return reply(req, textOf(done), nil)
		}
		data := map[string]any{"retryAfterMs": 200, "limit": 10, "remaining": 0}
		if a.WaitMs != nil {
			data["retryAfterMs"] = *a.WaitMs
		}
		raw, _ := json.Marshal(data)
		return reply(req, nil, &jsonrpc.Error{Code: rateLimitedCode, Message: "Rate limited", Data: raw})
	}
	if n > orOne(a.Fails) {
		return reply(req, textOf(done), nil)
	}
	failure := map[string]any{"class": a.Class, "code": a.Code, "correlationId": fmt.Sprintf("corr-%s-%d", a.Key, n)}
	if a.Retryable {
		failure["retryable"] = true
	}
	res := textOf(fmt.Sprintf("%s %s: failed at attempt %d, idempotencyKey %s", p.Name, a.Key, n, key))
	res["isError"] = true
	res["_meta"] = map[string]any{"io.modelcontextprotocol/toolFailure": failure}
	return reply(req, res, nil)
}

func orOne(n *int) int {
	if n == nil {
		return 1
	}
	return *n
}

func textOf(text string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "resultType": "complete"}
}

// rateLimitedHTTP writes a -32023 as SEP-3304 binds it to HTTP: 429, with
// a Retry-After (whole seconds, rounded up) consistent with retryAfterMs
// and the quota headers for limit and remaining; false for any other answer.
func rateLimitedHTTP(w http.ResponseWriter, resp *jsonrpc.Response) bool {
	rpc, ok := resp.Error.(*jsonrpc.Error)
	if !ok || rpc.Code != rateLimitedCode {
		return false
	}
	var d struct {
		RetryAfterMs float64 `json:"retryAfterMs"`
		Limit        *int    `json:"limit"`
		Remaining    *int    `json:"remaining"`
	}
	json.Unmarshal(rpc.Data, &d)
	data, _ := jsonrpc.EncodeMessage(resp)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", strconv.FormatInt(int64((d.RetryAfterMs+999)/1000), 10))
	if d.Limit != nil {
		w.Header().Set("RateLimit-Limit", strconv.Itoa(*d.Limit))
	}
	if d.Remaining != nil {
		w.Header().Set("RateLimit-Remaining", strconv.Itoa(*d.Remaining))
	}
	w.WriteHeader(http.StatusTooManyRequests)
	w.Write(data)
	return true
}

// denial is SEP-2643's case 3 or 4: a failed CallToolResult whose _meta
// carries the envelope, hints only when remediation is available.
func denial(a signalArgs, n int) map[string]any {
	env := map[string]any{"reason": "insufficient_authorization", "remediation": a.Remediation, "authorizationContextId": fmt.Sprintf("authzctx_%s_%d", a.Key, n)}
	if a.Remediation == "" {
		env["remediation"] = "available"
	}
	if a.Detail != "" {
		env["remediationHints"] = []any{map[string]any{"type": "authorization_remediation",
			"authorization_details": []any{map[string]any{"type": a.Detail, "actions": []string{"initiate"}}}}}
	}
	res := textOf("Current authorization is insufficient for this call.")
	res["isError"] = true
	res["_meta"] = map[string]any{"io.modelcontextprotocol/authorization": env}
	return res
}
