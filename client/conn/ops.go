package conn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/listkind"
	"github.com/mcpc-dev/mcpc/internal/listpages"
	"github.com/mcpc-dev/mcpc/internal/suggest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
)

// ListTools fetches every page of tools/list. App-only tools (MCP Apps
// tools whose _meta.ui.visibility lacks "model") are dropped: a host must
// not offer them; so are the tools the entry's filter hides.
func (s *Conn) ListTools(ctx context.Context, only ...string) ([]*mcp.Tool, error) {
	var out []*mcp.Tool
	if !s.Declares("tools") {
		return nil, nil
	}
	if len(only) > 0 {
		defer s.keepOnly(func(_, name string) bool { return slices.Contains(only, name) })()
	}
	err := s.verify(ctx, func() error {
		out = nil
		s.wire.Results("tools/list")
		for t, err := range s.CS.Tools(ctx, nil) {
			if err != nil {
				return s.explain(ctx, "list tools of", err)
			}
			if !appOnly(t) && s.toolFilter(t.Name) == "" {
				out = append(out, t)
			}
		}
		return nil
	})
	return out, err
}

func appOnly(t *mcp.Tool) bool {
	ui, ok := t.Meta["ui"].(map[string]any)
	if !ok {
		return false
	}
	vis, ok := ui["visibility"].([]any)
	if !ok {
		return false
	}
	return !slices.Contains(vis, any("model"))
}

// toolFilter says why the entry's includeTools/excludeTools hide tool
// (config.Server.ToolFilteredBy), "" when shown or under --no-filter.
func (s *Conn) toolFilter(tool string) string {
	if s.opts.NoFilter || s.Entry == nil {
		return ""
	}
	return s.Entry.Server.ToolFilteredBy(tool)
}

// keepOnly has the wire hand the SDK only the list items keep keeps, until
// the returned function is called.
func (s *Conn) keepOnly(keep func(method, name string) bool) func() {
	s.wire.mu.Lock()
	s.wire.keep = keep
	s.wire.mu.Unlock()
	s.wire.tap.FrameAll(true)
	return func() {
		s.wire.tap.FrameAll(false)
		s.wire.mu.Lock()
		s.wire.keep = nil
		s.wire.mu.Unlock()
	}
}

// ListRaw fetches every page of a list (tools, resources, templates,
// prompts) and returns it as the server sent it, pages joined: the first
// page's fields in their order, the items of every page, no nextCursor.
// App-only tools are left out, and those the entry's filter hides. A list
// the server does not declare is empty, and not asked for.
func (s *Conn) ListRaw(ctx context.Context, kind string) (json.RawMessage, error) {
	k, _ := listkind.Of(kind)
	if !s.Declares(kind) {
		return listkind.Undeclared(kind), nil
	}
	var pages []json.RawMessage
	// mcpc reads the raw pages: the SDK need decode none of the items.
	defer s.keepOnly(func(string, string) bool { return false })()
	err := s.verify(ctx, func() error {
		s.wire.Results(k.Method)
		var err error
		switch kind {
		case "tools":
			err = drain(s.CS.Tools(ctx, nil))
		case "resources":
			err = drain(s.CS.Resources(ctx, nil))
		case "templates":
			err = drain(s.CS.ResourceTemplates(ctx, nil))
		case "prompts":
			err = drain(s.CS.Prompts(ctx, nil))
		}
		if err != nil {
			return s.explain(ctx, k.Op(), err)
		}
		pages = s.wire.Results(k.Method)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if kind != "tools" {
		return listpages.Join(pages, k.Key, nil), nil
	}
	return listpages.Join(pages, k.Key, func(t gjson.Result) bool {
		return listpages.AppOnly(t) || s.toolFilter(t.Get("name").String()) != ""
	}), nil
}

// Declares reports whether the server declares the list a word names
// (Declared, from its handshake's capabilities).
func (s *Conn) Declares(word string) bool {
	if s.CS == nil {
		return true
	}
	var caps *mcp.ServerCapabilities
	if r := s.CS.InitializeResult(); r != nil {
		caps = r.Capabilities
	}
	return listkind.Declared(caps, word)
}

// drain runs a pagination iterator to the end: the wire keeps each page as
// it arrived.
func drain[T any](seq iter.Seq2[T, error]) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

// FindTool returns the named tool from list, or an error that lists near
// misses. Calling an app-only tool is refused as if it did not exist; a
// tool the entry's filter hides is refused naming the filter, before
// anything is sent about it.
func (s *Conn) FindTool(tools []*mcp.Tool, name string) (*mcp.Tool, error) {
	if by := s.toolFilter(name); by != "" {
		return nil, fail.New(fail.Rejected, s.filterHint(),
			"tool %q of %s is hidden by its %s in %s", name, s.Label, by, s.Entry.SourceName())
	}
	var names []string
	for _, t := range tools {
		if t.Name == name {
			return t, nil
		}
		names = append(names, t.Name)
	}
	// A list cut down for the SDK (ListTools with names) still has every
	// name in its raw pages.
	for _, page := range s.wire.peek("tools/list") {
		listpages.Names(page, "tools", func(t gjson.Result, n string) {
			// (Not the name itself: a tool the SDK dropped as invalid.)
			if n != name && !listpages.AppOnly(t) && s.toolFilter(n) == "" {
				names = append(names, n)
			}
		})
	}
	hint := suggest.Hint(name, names, "list the tools with: "+s.ListHint())
	return nil, fail.New(fail.Rejected, hint, "%s has no tool named %q", s.Label, name)
}

// filterHint says how to reach a hidden tool: --no-filter, except for a
// project file's server, whose filter may be why it was trusted.
func (s *Conn) filterHint() string {
	if f := s.Entry.File; f != nil && f.Source == config.SourceProject {
		return "the project file's filter stays in force; to call the tool, define the server in your user config"
	}
	return "pass --no-filter to call it anyway, or change the filter in " + s.Entry.SourceName()
}

// CallTool sends tools/call and returns the result decoded (nil when the
// SDK cannot decode it, e.g. a content type it does not know) and exactly
// as it arrived.
func (s *Conn) CallTool(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, json.RawMessage, error) {
	if key := idempotencyKeyOf(ctx); key != "" {
		if !s.capability("tools.idempotency").Exists() {
			// SEP-3182 lets a client send the key anyway: harmless, but
			// without the capability nothing says the server honours it.
			trace(s.opts, "the server does not declare tools.idempotency (SEP-3182): the idempotencyKey may be ignored")
		}
		defer s.wire.tasks.withKey(key)()
	}
	var res *mcp.CallToolResult
	var raw json.RawMessage
	err := s.verify(ctx, func() error {
		s.wire.Results("tools/call")
		var err error
		res, err = s.CS.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		raw = last(s.wire.Results("tools/call"))
		if err != nil && raw != nil && s.undecodable(ctx, err) {
			res, err = nil, nil
		}
		if err != nil {
			return s.explain(ctx, fmt.Sprintf("call tool %q on", tool), err)
		}
		return nil
	})
	return res, raw, err
}

// undecodable reports whether err is the SDK failing to decode a result
// that did arrive: an error explain knows no cause for (not a JSON-RPC
// error, not a transport failure, not a verdict of mcpc's own such as an
// answer that does not fit), and not the SDK's refusal to send.
func (s *Conn) undecodable(ctx context.Context, err error) bool {
	var rpc *jsonrpc.Error
	return !errors.As(err, &rpc) && s.cause(ctx, "", err) == nil
}

func last(rs []json.RawMessage) json.RawMessage {
	if len(rs) == 0 {
		return nil
	}
	return rs[len(rs)-1]
}

// ReadResource sends resources/read and returns the result as it arrived.
func (s *Conn) ReadResource(ctx context.Context, uri string) (json.RawMessage, error) {
	return s.rawRequest(ctx, "resources/read", fmt.Sprintf("read %s from", uri), func() error {
		_, err := s.CS.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		return err
	})
}

// GetPrompt sends prompts/get and returns the result as it arrived.
func (s *Conn) GetPrompt(ctx context.Context, name string, args map[string]string) (json.RawMessage, error) {
	return s.rawRequest(ctx, "prompts/get", fmt.Sprintf("get prompt %q from", name), func() error {
		_, err := s.CS.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		return err
	})
}

// rawRequest runs send, the SDK's request for method, and returns its
// result as it arrived, even one the SDK cannot decode.
func (s *Conn) rawRequest(ctx context.Context, method, what string, send func() error) (json.RawMessage, error) {
	var raw json.RawMessage
	err := s.verify(ctx, func() error {
		s.wire.Results(method)
		err := send()
		raw = last(s.wire.Results(method))
		if err != nil && !(raw != nil && s.undecodable(ctx, err)) {
			return s.explain(ctx, what, err)
		}
		return nil
	})
	return raw, err
}

// Ping times one round trip to the server: ping on a 2025 server; a
// 2026-07-28 server has no ping (-32601), so there server/discover, sent
// beside the SDK and the era memo so that the server itself answers.
func (s *Conn) Ping(ctx context.Context) (rtt time.Duration, err error) {
	err = s.verifyOp(ctx, s.modern(), func() error {
		start := time.Now()
		var err error
		if s.modern() {
			_, err = taskConn{s}.Request(ctx, "server/discover", "", nil)
		} else {
			err = s.CS.Ping(ctx, nil)
		}
		rtt = time.Since(start)
		return s.explain(ctx, "ping", err)
	})
	return rtt, err
}

// MaxCompletionValues is how many values a completion/complete answer
// may hold (the spec's bound); mcpc keeps no more than that of any answer.
const MaxCompletionValues = 100

// Complete asks the server for the values an argument of ref (a prompt or
// a resource template) can take, starting with value; args are the
// arguments already given, the context a later argument's values may
// depend on. A server that does not declare completions is not asked.
// At most MaxCompletionValues values are returned; more says the server
// has others (it said so, or sent more than that and mcpc cut them).
func (s *Conn) Complete(ctx context.Context, ref *mcp.CompleteReference, arg, value string, args map[string]string) (values []string, more bool, err error) {
	if r := s.CS.InitializeResult(); r == nil || r.Capabilities == nil || r.Capabilities.Completions == nil {
		return nil, false, nil
	}
	p := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
	if len(args) > 0 {
		p.Context = &mcp.CompleteContext{Arguments: args}
	}
	res, err := s.CS.Complete(ctx, p)
	if err != nil {
		return nil, false, s.explain(ctx, "complete "+arg+" of", err)
	}
	c := res.Completion
	values = c.Values
	if len(values) > MaxCompletionValues {
		values = slices.Clip(values[:MaxCompletionValues])
	}
	return values, c.HasMore || c.Total > len(values) || len(c.Values) > len(values), nil
}
