package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const methodDiscover = "server/discover"

// methodNotFound is the error an old server returns for server/discover,
// worded like the go-sdk's own reply to an unknown method.
func methodNotFound(method string) *jsonrpc.Error {
	return &jsonrpc.Error{
		Code:    jsonrpc.CodeMethodNotFound,
		Message: fmt.Sprintf("method not found: %q", method),
	}
}

// crashOnToolCall makes every tool call kill the process mid-call, so that
// clients see the server vanish with a request in flight.
func crashOnToolCall(stderr io.Writer) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				fmt.Fprintln(stderr, crashMessage)
				os.Exit(3)
			}
			return next(ctx, method, req)
		}
	}
}

// faultTransport wraps the stdio transport to misbehave below the SDK, where
// an old or broken server's behaviour lives: the SDK itself always answers
// server/discover and never writes anything but JSON.
type faultTransport struct {
	mcp.Transport
	opts   *options
	out    io.Writer // raw stdout, for garbage
	stderr io.Writer
}

func (t *faultTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &faultConn{Connection: conn, t: t}, nil
}

type faultConn struct {
	mcp.Connection
	t *faultTransport

	// writeMu serializes everything written to stdout, so that garbage and
	// our own replies never interleave with the SDK's lines.
	writeMu     sync.Mutex
	garbageOnce sync.Once
	// floodAfter is the request whose answer the --notify flood follows
	// (--notify-on other than tools/call).
	floodAfter atomic.Pointer[jsonrpc.ID]
	// streams are the events/stream requests being served (events_push.go).
	streams pushStreams
}

func (c *faultConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if r, ok := msg.(*jsonrpc.Response); ok && c.t.opts.fault == faultOddResultType &&
		bytes.Contains(r.Result, []byte(`"content":`)) {
		// Only results with content: tool results, not discover or lists.
		cp := *r
		cp.Result = bytes.Replace(r.Result, []byte(`"resultType":"complete"`), []byte(`"resultType":"later"`), 1)
		msg = &cp
	}
	if r, ok := msg.(*jsonrpc.Response); ok && c.t.opts.idempotency && bytes.Contains(r.Result, []byte(`"capabilities":`)) {
		// SEP-3182's capability, which the SDK does not model.
		cp := *r
		cp.Result = bytes.Replace(r.Result, []byte(`"tools":{`), []byte(`"tools":{"idempotency":{},`), 1)
		msg = &cp
	}
	if r, ok := msg.(*jsonrpc.Response); ok && len(c.t.opts.generated) > 0 && bytes.Contains(r.Result, []byte(`"tools":[`)) {
		msg = c.withManyTools(r)
	}
	if r, ok := msg.(*jsonrpc.Response); ok {
		if id := c.floodAfter.Load(); id != nil && *id == r.ID {
			c.floodAfter.Store(nil)
			if err := c.Connection.Write(ctx, msg); err != nil {
				return err
			}
			c.writeMu.Unlock()
			defer c.writeMu.Lock()
			c.notifyFlood(&jsonrpc.Request{})
			return nil
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *faultConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return nil, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			return msg, nil
		}
		if c.t.opts.fault == faultGarbage {
			c.garbageOnce.Do(func() {
				c.writeMu.Lock()
				defer c.writeMu.Unlock()
				io.WriteString(c.t.out, garbageOutput)
			})
		}
		if handled, err := c.answerBelow(ctx, req); err != nil || handled {
			if err != nil {
				return nil, err
			}
			continue
		}
		if req.Method == "completion/complete" && req.IsCall() && c.t.opts.completionFlood > 0 {
			c.completionFlood(req)
			continue
		}
		if req.Method == "tools/call" && req.IsCall() && c.answerCall(req) {
			continue
		}
		if req.Method == c.t.opts.notifyOn && c.t.opts.notify > 0 {
			if req.Method != "tools/call" {
				// After the answer: a watch is ready (its first line
				// written) once the answer came, and reads the flood then.
				c.floodAfter.Store(&req.ID)
				return msg, nil
			}
			c.notifyFlood(req)
		}
		if req.Method == "tools/call" && req.IsCall() && c.callGenerated(req) {
			continue
		}
		if req.Method != methodDiscover || !req.IsCall() {
			return msg, nil
		}
		if handled, err := c.discover(ctx, req); err != nil || !handled {
			return msg, err
		}
	}
}

// answerBelow answers what the SDK does not know: an events stream (in
// the background) or its cancellation, or an extension's request.
func (c *faultConn) answerBelow(ctx context.Context, req *jsonrpc.Request) (bool, error) {
	if c.stdioStream(ctx, req) || c.cancelStream(req) {
		return true, nil
	}
	if resp := c.t.opts.below(req); resp != nil {
		return true, c.Write(ctx, resp)
	}
	return false, nil
}

// discover answers a server/discover call as a legacy server or the fault
// would (exit, silence, a noisy refusal, -32601); false leaves it to the
// SDK.
func (c *faultConn) discover(ctx context.Context, req *jsonrpc.Request) (bool, error) {
	var resp *jsonrpc.Response
	switch {
	case c.t.opts.fault == faultExitOnDiscover:
		fmt.Fprintln(c.t.stderr, exitOnDiscoverNotice)
		os.Exit(1)
	case c.t.opts.fault == faultSilentDiscover:
		return true, nil // never answered
	case c.t.opts.fault == faultNoisyDiscover:
		io.WriteString(c.t.stderr, noisyDiscoverWarning())
		resp = &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid request parameters"}}
	case c.t.opts.legacy:
		resp = &jsonrpc.Response{ID: req.ID, Error: methodNotFound(req.Method)}
	default:
		return false, nil
	}
	return true, c.Write(ctx, resp)
}

// answerCall misbehaves on a tool call, below the SDK, for the faults
// that do; it reports whether it took the call.
func (c *faultConn) answerCall(req *jsonrpc.Request) bool {
	id, err := json.Marshal(req.ID.Raw())
	if err != nil {
		return false
	}
	var line string
	switch c.callFault(req) {
	case callNotJSON:
		line = notJSONAnswer
	case callEndless:
		go c.writeEndless(id)
		return true
	case faultNeverAnswer:
		return true
	case faultFlood:
		go func() {
			c.writeMu.Lock()
			defer c.writeMu.Unlock()
			for i := range floodRequests {
				fmt.Fprintf(c.t.out, `{"jsonrpc":"2.0","id":"flood-%d","method":"ping"}`+"\n", i)
			}
		}()
		select {} // never read again: the answers pile up unread
	case faultWrongID:
		line = `{"jsonrpc":"2.0","id":"not-` + strings.Trim(string(id), `"`) + `","result":{"content":[]}}`
	case faultDeep:
		// The id last, as the TypeScript SDK writes it: a reader that
		// looks for it must read past what nests.
		line = `{"jsonrpc":"2.0","result":{"content":[],"deep":` +
			strings.Repeat("[", deepNesting) + strings.Repeat("]", deepNesting) + `},"id":` + string(id) + `}`
	default:
		return false
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	io.WriteString(c.t.out, line+"\n")
	return true
}

// callNotJSON is the not-json tool's fault (--call-faults): notJSONAnswer,
// a line that is not JSON, in place of its answer.
const (
	callNotJSON   = "not-json"
	notJSONAnswer = "Traceback (most recent call last): this is not JSON"
)

// callEndless is the endless tool's fault (--call-faults): an answer
// whose line never ends, written until stdout is closed.
const callEndless = "endless"

// writeEndless writes the start of the answer to id, then text without
// end; it holds stdout, so nothing else is written meanwhile.
func (c *faultConn) writeEndless(id []byte) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := io.WriteString(c.t.out, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"content":[{"type":"text","text":"`); err != nil {
		return
	}
	chunk := strings.Repeat("x", 64<<10)
	for {
		if _, err := io.WriteString(c.t.out, chunk); err != nil {
			return
		}
	}
}

// callFault is the fault that answers req, a tool call: --fault's, or
// with --call-faults the one the tool's name asks for (not-json,
// too-deep, endless), so that one call misbehaves and the next is answered.
func (c *faultConn) callFault(req *jsonrpc.Request) string {
	if !c.t.opts.callFaults {
		return c.t.opts.fault
	}
	var p struct {
		Name string `json:"name"`
	}
	json.Unmarshal(req.Params, &p)
	switch p.Name {
	case callNotJSON, callEndless:
		return p.Name
	case "too-deep":
		return faultDeep
	}
	return c.t.opts.fault
}

// addFaultTools lists the tools --call-faults answers below the SDK (the
// handlers never run): a call must be listed to be made.
func addFaultTools(s *mcp.Server) {
	for _, name := range []string{callNotJSON, "too-deep", callEndless} {
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: "Answered with a fault, below the SDK (--call-faults)."},
			func(context.Context, *mcp.CallToolRequest, noIn) (*mcp.CallToolResult, any, error) {
				return textResult(""), nil, nil
			})
	}
}

// faultHandler applies the same faults in front of the SDK's Streamable HTTP
// handler. stop is closed at shutdown to release requests held forever.
type faultHandler struct {
	next   http.Handler
	opts   *options
	stderr io.Writer
	stop   <-chan struct{}
}

func (h *faultHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.faulted(w, r) {
		return
	}
	if r.Method != http.MethodPost || !h.opts.legacyMode() && h.opts.tasks == nil && h.opts.skills == nil && h.opts.signals == nil && h.opts.events == nil {
		h.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcp.DefaultMaxRequestBodyBytes))
	if err != nil {
		http.Error(w, "failed to read body", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	msg, err := jsonrpc.DecodeMessage(body)
	req, ok := msg.(*jsonrpc.Request)
	if ok && err == nil && h.answerBelow(w, r, req) {
		return
	}
	if err != nil || !ok || req.Method != methodDiscover || !req.IsCall() || !h.opts.legacyMode() {
		h.next.ServeHTTP(w, r)
		return
	}
	h.answerDiscover(w, r, req)
}

// faulted answers r as the fault asks, if it does: as a proxy, endlessly,
// or never; false for a request the fault lets through.
func (h *faultHandler) faulted(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case proxyFault(h.opts.fault) && h.answerAsProxy(w, r):
		return true
	case endlessFault(h.opts.fault) && h.answerEndless(w, r):
		return true
	case h.opts.fault == faultHang:
		io.Copy(io.Discard, r.Body)
		h.holdForever(r)
		return true
	case h.opts.fault != faultNeverAnswer || r.Method != http.MethodPost:
		return false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcp.DefaultMaxRequestBodyBytes))
	if err != nil {
		http.Error(w, "failed to read body", http.StatusBadRequest)
		return true
	}
	if m, err := jsonrpc.DecodeMessage(body); err == nil {
		if req, ok := m.(*jsonrpc.Request); ok && req.Method == "tools/call" {
			h.holdForever(r)
			return true
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return false
}

// answerBelow answers req when a task's name does not match the request's
// Mcp-Name header, or when the era the server speaks knows the method only
// below it; false when neither.
func (h *faultHandler) answerBelow(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
	if resp := h.opts.tasks.nameMismatch(req, r.Header.Get("Mcp-Name")); resp != nil {
		data, _ := jsonrpc.EncodeMessage(resp)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(data)
		return true
	}
	if h.httpStream(w, r, req) {
		return true
	}
	if resp := h.opts.below(req); resp != nil {
		if !rateLimitedHTTP(w, resp) {
			writeResponse(w, resp)
		}
		return true
	}
	return false
}

// answerDiscover answers a legacy server's server/discover call as its
// fault asks: by exiting, by never answering, or (a pre-2026 server knows
// no server/discover) with a JSON-RPC error in a normal 200 reply, not the
// 404 a 2026-07-28 server would send.
func (h *faultHandler) answerDiscover(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) {
	switch h.opts.fault {
	case faultExitOnDiscover:
		fmt.Fprintln(h.stderr, exitOnDiscoverNotice)
		os.Exit(1)
	case faultSilentDiscover:
		h.holdForever(r)
	default:
		writeResponse(w, &jsonrpc.Response{ID: req.ID, Error: methodNotFound(req.Method)})
	}
}

// writeResponse writes resp as a 200 JSON reply.
func writeResponse(w http.ResponseWriter, resp jsonrpc.Message) {
	data, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}

// holdForever keeps the request open without replying until the client gives
// up or the server shuts down.
func (h *faultHandler) holdForever(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-h.stop:
	}
}

// proxyFault reports whether fault makes the HTTP server answer like
// something in front of it (a sign-in page, a proxy) rather than MCP.
func proxyFault(fault string) bool {
	return fault == faultHTMLPage || fault == faultEmptyOK || fault == faultNotJSONRPC
}

// What the proxy faults answer tools/list with; tests pin them.
const (
	loginPage     = "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><form>Sign in to continue</form></body></html>\n"
	notJSONRPCDoc = `{"status":"ok","message":"welcome"}`
)

// answerAsProxy answers what the proxy faults take over: the standalone
// GET with 405 (a server may offer no stream: the spec allows it), and
// tools/list in the fault's way; it reports whether it answered. The
// handshake passes, so that the failure comes after a 405 was seen.
func (h *faultHandler) answerAsProxy(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet {
		http.Error(w, "no standalone stream here", http.StatusMethodNotAllowed)
		return true
	}
	if r.Method != http.MethodPost {
		return false
	}
	m, ok := peekMessage(w, r)
	if !ok {
		return true
	}
	if !isCall(m, "tools/list") {
		return false
	}
	switch h.opts.fault {
	case faultHTMLPage:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, loginPage)
	case faultEmptyOK:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
	case faultNotJSONRPC:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, notJSONRPCDoc)
	}
	return true
}

// peekMessage reads the JSON-RPC message a POST carries and puts its body
// back for the handler; nil when the body is none. It reports false when
// the body could not be read (and answers 400).
func peekMessage(w http.ResponseWriter, r *http.Request) (jsonrpc.Message, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcp.DefaultMaxRequestBodyBytes))
	if err != nil {
		http.Error(w, "failed to read body", http.StatusBadRequest)
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	m, _ := jsonrpc.DecodeMessage(body)
	return m, true
}

func isCall(m jsonrpc.Message, method string) bool {
	req, ok := m.(*jsonrpc.Request)
	return ok && req.IsCall() && req.Method == method
}

// noisyDiscoverWarning is what the official Python SDK (1.x) logs for a
// request whose method it does not know, server/discover among them: its
// request union fails to validate, one error per request type it knows,
// before it answers -32602 (noisy-discover).
func noisyDiscoverWarning() string {
	var b strings.Builder
	b.WriteString("WARNING:root:Failed to validate request: 31 validation errors for ClientRequest\n")
	for _, m := range []string{"PingRequest", "InitializeRequest", "CompleteRequest", "SetLevelRequest", "GetPromptRequest",
		"ListPromptsRequest", "ListResourcesRequest", "ListResourceTemplatesRequest", "ReadResourceRequest", "SubscribeRequest",
		"UnsubscribeRequest", "CallToolRequest", "ListToolsRequest"} {
		fmt.Fprintf(&b, "%s.method\n  Input should be '%s' [type=literal_error, input_value='server/discover', input_type=str]\n", m, m)
		b.WriteString("    For further information visit https://errors.pydantic.dev/2.11/v/literal_error\n")
	}
	return b.String()
}
