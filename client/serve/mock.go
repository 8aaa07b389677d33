package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/schemadiff"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

// Mock is a server made of a snapshot (mcpc mock): it lists the
// snapshot's tools, prompts and resource templates as they are, checks
// each tools/call's arguments against the tool's inputSchema, and answers
// a call with the tool's answer (--answers) or, for a tool with an
// outputSchema, the smallest structuredContent the schema admits. It
// holds no server: each client's Line answers by itself.
type Mock struct {
	Name    string // the snapshot file, as messages name it
	Version string // mcpc's, in serverInfo
	Limit   int64  // bytes in one message, both ways (--max-message)

	tools                    map[string]*mockTool
	prompts                  map[string]schemadiff.Prompt
	toolList, promptList     json.RawMessage // the list results, made once
	templateList             json.RawMessage
	hasPrompts, hasTemplates bool
}

// mockTool is one tool of the snapshot: as the schema check takes it,
// and its answer.
type mockTool struct {
	tool   *mcp.Tool
	answer json.RawMessage // the whole CallToolResult
	// missing says why the tool has no answer: its calls fail with it.
	missing string
}

// legacyVersions are the 2025 revisions an initialize may ask for, the
// newest first: the mock answers in the one asked, else the newest.
func legacyVersions() []string {
	return []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
}

// NewMock makes the mock of snap. answers are whole CallToolResults by
// tool name (--answers); each is checked against its tool's
// outputSchema (a bad one is an error here, at start), and every tool
// with an outputSchema and no answer gets the smallest value the schema
// admits; one that has none fails its calls (Unanswered says which).
func NewMock(ctx context.Context, name string, snap *schemadiff.Snapshot, answers map[string]json.RawMessage) (*Mock, error) {
	m := &Mock{Name: name, tools: map[string]*mockTool{}, prompts: map[string]schemadiff.Prompt{}}
	listed := make(map[string]bool, len(snap.Tools))
	for _, t := range snap.Tools {
		listed[t.Name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(answers)) {
		if !listed[name] {
			return nil, fail.New(fail.Usage, "give answers for tools the snapshot lists only", "--answers: the snapshot has no tool %q", name)
		}
	}
	for _, t := range snap.Tools {
		if m.tools[t.Name] != nil {
			continue // listed twice: the first answers
		}
		mt, err := newMockTool(ctx, t, answers[t.Name])
		if err != nil {
			return nil, err
		}
		m.tools[t.Name] = mt
	}
	for _, p := range snap.Prompts {
		if _, ok := m.prompts[p.Name]; !ok {
			m.prompts[p.Name] = p
		}
	}
	var err error
	if m.toolList, err = json.Marshal(map[string]any{"tools": snap.Tools}); err == nil {
		if m.promptList, err = json.Marshal(map[string]any{"prompts": snap.Prompts}); err == nil {
			m.templateList, err = json.Marshal(map[string]any{"resourceTemplates": snap.ResourceTemplates})
		}
	}
	m.hasPrompts, m.hasTemplates = len(snap.Prompts) > 0, len(snap.ResourceTemplates) > 0
	return m, err
}

// newMockTool is t with its answer: given (checked), made from its
// outputSchema, or, for a tool without one, no content at all.
func newMockTool(ctx context.Context, t schemadiff.Tool, answer json.RawMessage) (*mockTool, error) {
	mt := &mockTool{tool: &mcp.Tool{Name: t.Name}}
	if t.InputSchema != nil {
		mt.tool.InputSchema = t.InputSchema
	}
	if t.OutputSchema != nil {
		mt.tool.OutputSchema = t.OutputSchema
	}
	if answer != nil {
		if err := checkAnswer(ctx, mt.tool, answer); err != nil {
			return nil, fail.New(fail.Usage, "fix its answer in the --answers file: a whole CallToolResult, its structuredContent matching the tool's outputSchema",
				"--answers: the answer for tool %q %v", t.Name, err)
		}
		mt.answer = answer
		return mt, nil
	}
	if t.OutputSchema == nil {
		mt.answer = json.RawMessage(`{"content":[]}`)
		return mt, nil
	}
	sc, err := toolschema.MinimalValue(ctx, t.OutputSchema)
	if err != nil {
		// Its calls fail, the rest of the mock serves: one tool with a
		// schema no value is made for does not stop a script's test of
		// the others.
		mt.missing = fmt.Sprintf("mcpc mock has no answer for tool %q: no value it makes matches the outputSchema (%v); give one with --answers @FILE", t.Name, err)
		return mt, nil
	}
	mt.answer, _ = json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": string(sc)}},
		"structuredContent": sc})
	return mt, nil
}

// checkAnswer says what is wrong with answer as tool's CallToolResult.
func checkAnswer(ctx context.Context, tool *mcp.Tool, answer json.RawMessage) error {
	res := rawmsg.View(answer)
	if !res.IsObject() {
		return errors.New("is not a JSON object (a CallToolResult)")
	}
	if c := res.Get("content"); !c.IsArray() {
		return errors.New(`has no "content" array`)
	}
	if s := res.Get("structuredContent"); s.Exists() && !s.IsObject() {
		return errors.New(`has a "structuredContent" that is not an object`)
	}
	if tool.OutputSchema != nil && !res.Get("isError").Bool() && !res.Get("structuredContent").Exists() {
		return errors.New(`has no "structuredContent", which the tool's outputSchema requires`)
	}
	mismatch, skipped, err := toolschema.ValidateOutput(ctx, tool, answer)
	switch {
	case err != nil:
		return err
	case mismatch != "":
		return fmt.Errorf("does not match the tool's outputSchema: %s", mismatch)
	case skipped != "":
		return fmt.Errorf("cannot be checked: the tool's outputSchema cannot be used (%s)", skipped)
	}
	return nil
}

// Label names the mock, for messages.
func (m *Mock) Label() string { return "the mock of " + m.Name }

// MaxMessage is m.Limit.
func (m *Mock) MaxMessage() int64 { return m.Limit }

func (m *Mock) answersItself() {}

// Open is a client's line to the mock: it answers every request itself,
// in the order they come, in either era.
func (m *Mock) Open(ctx context.Context, era Era) (Line, error) {
	return &mockLine{m: m, out: make(chan jsonrpc.Message, 64), done: make(chan struct{})}, nil
}

// mockLine is one client's Line to a Mock.
type mockLine struct {
	m    *Mock
	out  chan jsonrpc.Message
	done chan struct{}
	once sync.Once
}

// Send answers a request; notifications and answers are dropped (the
// mock asks nothing, and has nothing to cancel).
func (l *mockLine) Send(msg jsonrpc.Message) error {
	r, ok := msg.(*jsonrpc.Request)
	if !ok || !r.IsCall() {
		return nil
	}
	res, rpcErr := l.m.answer(r)
	resp := &jsonrpc.Response{ID: r.ID, Result: res}
	if rpcErr != nil {
		resp.Error = rpcErr // not a nil *Error in the interface
	}
	select {
	case l.out <- resp:
		return nil
	case <-l.done:
		return io.ErrClosedPipe
	}
}

// Receive is the next answer.
func (l *mockLine) Receive() (jsonrpc.Message, error) {
	select {
	case msg := <-l.out:
		return msg, nil
	case <-l.done:
		return nil, io.EOF
	}
}

// Close ends the line.
func (l *mockLine) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// mockCheckTime bounds one call's argument check (the check bounds its
// own work too; this is for a machine that is slow).
const mockCheckTime = 10 * time.Second

// answer is the mock's answer to r.
func (m *Mock) answer(r *jsonrpc.Request) (json.RawMessage, *jsonrpc.Error) {
	switch r.Method {
	case "initialize":
		return m.initialize(r)
	case "server/discover":
		return m.discover()
	case "ping":
		return json.RawMessage(`{}`), nil
	case "tools/list":
		return m.toolList, nil
	case "prompts/list":
		return m.promptList, nil
	case "resources/templates/list":
		return m.templateList, nil
	case "resources/list":
		// A snapshot keeps no resources, only their templates.
		return json.RawMessage(`{"resources":[]}`), nil
	case "tools/call":
		return m.call(r)
	case "prompts/get":
		return m.prompt(r)
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: mcpc mock does not serve " + r.Method}
}

// capabilities are the kinds the snapshot has (tools always: a snapshot
// is of a server's tools first).
func (m *Mock) capabilities() map[string]any {
	caps := map[string]any{"tools": map[string]any{}}
	if m.hasPrompts {
		caps["prompts"] = map[string]any{}
	}
	if m.hasTemplates {
		caps["resources"] = map[string]any{}
	}
	return caps
}

func (m *Mock) serverInfo() map[string]string {
	return map[string]string{"name": "mcpc mock", "version": m.Version}
}

func (m *Mock) initialize(r *jsonrpc.Request) (json.RawMessage, *jsonrpc.Error) {
	asked := rawmsg.View(r.Params).Get("protocolVersion").String()
	version := legacyVersions()[0]
	if slices.Contains(legacyVersions(), asked) {
		version = asked
	}
	out, _ := json.Marshal(map[string]any{"protocolVersion": version, "capabilities": m.capabilities(), "serverInfo": m.serverInfo()})
	return out, nil
}

func (m *Mock) discover() (json.RawMessage, *jsonrpc.Error) {
	out, _ := json.Marshal(map[string]any{"supportedVersions": append([]string{"2026-07-28"}, legacyVersions()...),
		"capabilities": m.capabilities(), "serverInfo": m.serverInfo(), "ttlMs": 0})
	return out, nil
}

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// call answers a tools/call: the tool's answer, once its arguments
// match its inputSchema.
func (m *Mock) call(r *jsonrpc.Request) (json.RawMessage, *jsonrpc.Error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(r.Params, &p); err != nil {
		return nil, invalidParams("tools/call params: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	t := m.tools[p.Name]
	if t == nil {
		return nil, invalidParams("unknown tool %q", p.Name)
	}
	var args map[string]any
	if len(p.Arguments) > 0 && !bytes.Equal(p.Arguments, []byte("null")) {
		if json.Unmarshal(p.Arguments, &args) != nil {
			return nil, invalidParams("the arguments of tool %q are not a JSON object", p.Name)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), mockCheckTime)
	defer cancel()
	if _, err := toolschema.ValidateArgs(ctx, t.tool, args); err != nil {
		var fe *fail.Error
		if errors.As(err, &fe) && fe.Code == fail.Usage {
			return nil, invalidParams("%s", fe.Msg)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	if t.missing != "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: t.missing}
	}
	return t.answer, nil
}

// Unanswered says, for each tool the mock has no answer for, why: the
// command notes them at start.
func (m *Mock) Unanswered() []string {
	var out []string
	for _, t := range m.tools {
		if t.missing != "" {
			out = append(out, t.missing)
		}
	}
	slices.Sort(out)
	return out
}

// prompt answers a prompts/get: one user message naming the prompt and
// its arguments, once every required one is given.
func (m *Mock) prompt(r *jsonrpc.Request) (json.RawMessage, *jsonrpc.Error) {
	var p struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := json.Unmarshal(r.Params, &p); err != nil {
		return nil, invalidParams("prompts/get params: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	pr, ok := m.prompts[p.Name]
	if !ok {
		return nil, invalidParams("unknown prompt %q", p.Name)
	}
	text := []string{p.Name}
	for _, a := range pr.Arguments {
		if _, given := p.Arguments[a.Name]; a.Required && !given {
			return nil, invalidParams("prompt %q: argument %q is required", p.Name, a.Name)
		}
	}
	names := make([]string, 0, len(p.Arguments))
	for k := range p.Arguments {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		text = append(text, k+"="+p.Arguments[k])
	}
	out, _ := json.Marshal(map[string]any{"description": pr.Description,
		"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": strings.Join(text, " ")}}}})
	return out, nil
}
