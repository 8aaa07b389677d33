package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/schemamsg"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
)

// ListTools fetches every page of tools/list. App-only tools (MCP Apps
// tools whose _meta.ui.visibility lacks "model") are dropped: a host must
// not offer them.
func (s *Session) ListTools(ctx context.Context) ([]*mcp.Tool, error) {
	var out []*mcp.Tool
	err := s.verify(ctx, func() error {
		out = nil
		s.wire.Results("tools/list")
		for t, err := range s.CS.Tools(ctx, nil) {
			if err != nil {
				return s.explain(ctx, "list tools of", err)
			}
			if !appOnly(t) {
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

// appOnlyRaw is appOnly for a tool as the server sent it.
func appOnlyRaw(tool gjson.Result) bool {
	vis := tool.Get("_meta.ui.visibility")
	if !vis.IsArray() {
		return false
	}
	for _, v := range vis.Array() {
		if v.String() == "model" {
			return false
		}
	}
	return true
}

// Lists mcpc can print, by the word the user types.
var listKinds = map[string]struct{ method, key, op string }{
	"tools":     {"tools/list", "tools", "list tools of"},
	"resources": {"resources/list", "resources", "list resources of"},
	"templates": {"resources/templates/list", "resourceTemplates", "list resource templates of"},
	"prompts":   {"prompts/list", "prompts", "list prompts of"},
}

// ListRaw fetches every page of a list (tools, resources, templates,
// prompts) and returns it as the server sent it, pages joined: the first
// page's fields in their order, the items of every page, no nextCursor.
// App-only tools are left out.
func (s *Session) ListRaw(ctx context.Context, kind string) (json.RawMessage, error) {
	k := listKinds[kind]
	var pages []json.RawMessage
	err := s.verify(ctx, func() error {
		s.wire.Results(k.method)
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
			return s.explain(ctx, k.op, err)
		}
		pages = s.wire.Results(k.method)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return joinPages(pages, k.key, kind == "tools"), nil
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

// joinPages merges list pages into one document.
func joinPages(pages []json.RawMessage, key string, dropAppOnly bool) json.RawMessage {
	if len(pages) == 0 {
		return json.RawMessage(`{"` + key + `":[]}`)
	}
	if len(pages) == 1 && !dropAppOnly && !gjson.GetBytes(pages[0], "nextCursor").Exists() {
		return pages[0]
	}
	var items []string
	for _, p := range pages {
		for _, it := range gjson.GetBytes(p, key).Array() {
			if dropAppOnly && appOnlyRaw(it) {
				continue
			}
			items = append(items, it.Raw)
		}
	}
	var b strings.Builder
	b.WriteByte('{')
	first, wroteItems := true, false
	field := func(k, raw string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.WriteString(raw)
	}
	gjson.ParseBytes(pages[0]).ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "nextCursor":
		case key:
			field(key, "["+strings.Join(items, ",")+"]")
			wroteItems = true
		default:
			field(k.String(), v.Raw)
		}
		return true
	})
	if !wroteItems {
		field(key, "["+strings.Join(items, ",")+"]")
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}

// FindTool returns the named tool from list, or an error that lists near
// misses. Calling an app-only tool is refused as if it did not exist.
func (s *Session) FindTool(tools []*mcp.Tool, name string) (*mcp.Tool, error) {
	var names []string
	for _, t := range tools {
		if t.Name == name {
			return t, nil
		}
		names = append(names, t.Name)
	}
	hint := "list the tools with: " + s.ListHint()
	if c := config.Closest(name, names); c != "" {
		hint = fmt.Sprintf("did you mean %q? ", c) + hint
	}
	return nil, fail.New(fail.Rejected, hint, "%s has no tool named %q", s.Label, name)
}

// CallTool sends tools/call and returns the result decoded (nil when the
// SDK cannot decode it, e.g. a content type it does not know) and exactly
// as it arrived.
func (s *Session) CallTool(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, json.RawMessage, error) {
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
func (s *Session) undecodable(ctx context.Context, err error) bool {
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
func (s *Session) ReadResource(ctx context.Context, uri string) (json.RawMessage, error) {
	var raw json.RawMessage
	err := s.verify(ctx, func() error {
		s.wire.Results("resources/read")
		_, err := s.CS.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		raw = last(s.wire.Results("resources/read"))
		if err != nil && !(raw != nil && s.undecodable(ctx, err)) {
			return s.explain(ctx, fmt.Sprintf("read %s from", uri), err)
		}
		return nil
	})
	return raw, err
}

// GetPrompt sends prompts/get and returns the result as it arrived.
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string) (json.RawMessage, error) {
	var raw json.RawMessage
	err := s.verify(ctx, func() error {
		s.wire.Results("prompts/get")
		_, err := s.CS.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		raw = last(s.wire.Results("prompts/get"))
		if err != nil && !(raw != nil && s.undecodable(ctx, err)) {
			return s.explain(ctx, fmt.Sprintf("get prompt %q from", name), err)
		}
		return nil
	})
	return raw, err
}

// schemaHint is what to do about arguments that fail the inputSchema.
const schemaHint = "fix the arguments, or pass --no-validate to let the server judge them"

// ValidateArgs checks args against the tool's inputSchema. Only local $refs
// are followed: a schema never makes mcpc fetch anything. A schema that
// cannot be resolved is reported through skipped rather than blocking the
// call, since the server validates too.
func ValidateArgs(tool *mcp.Tool, args map[string]any) (skipped string, err error) {
	if args == nil {
		args = map[string]any{}
	}
	// Round-trip so numbers are float64 and nested values plain JSON types,
	// which is what the validator expects.
	b, _ := json.Marshal(args)
	msg, skipped := validate(tool.InputSchema, b, "argument")
	if msg != "" {
		return "", fail.New(fail.Usage, schemaHint, "arguments do not match the inputSchema of tool %q: %s", tool.Name, msg)
	}
	return skipped, nil
}

// ValidateOutput checks a result's structuredContent against the tool's
// outputSchema, as clients SHOULD. It returns what does not match ("" when
// it does, or when there is nothing to check) and why a schema could not
// be used.
func ValidateOutput(tool *mcp.Tool, result json.RawMessage) (mismatch, skipped string) {
	sc := gjson.GetBytes(result, "structuredContent")
	if tool == nil || tool.OutputSchema == nil || !sc.Exists() || gjson.GetBytes(result, "isError").Bool() {
		return "", ""
	}
	return validate(tool.OutputSchema, []byte(sc.Raw), "field")
}

// validate checks the JSON instance against schema. Only local $refs are
// followed: a schema never makes mcpc fetch anything.
func validate(schema any, instance []byte, noun string) (mismatch, skipped string) {
	if schema == nil {
		return "", ""
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return "", err.Error()
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(raw, &sch); err != nil {
		return "", err.Error()
	}
	res, err := sch.Resolve(nil)
	if err != nil {
		return "", err.Error()
	}
	// A server's schema that loops would crash the validator.
	if loop := schemamsg.Loop(&sch); loop != "" {
		return "", loop
	}
	var inst any
	if err := json.Unmarshal(instance, &inst); err != nil {
		return "", err.Error()
	}
	if err := res.Validate(inst); err != nil {
		// Worded from the schema as plain JSON: raw, which just parsed.
		var tree any
		_ = json.Unmarshal(raw, &tree)
		return schemamsg.Mismatch(err, tree, inst, noun), ""
	}
	return "", ""
}

// PropertyTypes maps each top-level property of a tool's inputSchema to its
// declared JSON type(s), so key=value arguments can be coerced.
func PropertyTypes(tool *mcp.Tool) map[string][]string {
	out := map[string][]string{}
	m, ok := schemaMap(tool.InputSchema)
	if !ok {
		return out
	}
	props, _ := m["properties"].(map[string]any)
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		switch t := pm["type"].(type) {
		case string:
			out[name] = []string{t}
		case []any:
			for _, x := range t {
				if s, ok := x.(string); ok {
					out[name] = append(out[name], s)
				}
			}
		}
	}
	return out
}

func schemaMap(s any) (map[string]any, bool) {
	if m, ok := s.(map[string]any); ok {
		return m, true
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil, false
	}
	return m, true
}
