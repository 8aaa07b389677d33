package client

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListTools fetches every page of tools/list. App-only tools (MCP Apps
// tools whose _meta.ui.visibility lacks "model") are dropped: a host must
// not offer them.
func (s *Session) ListTools(ctx context.Context) ([]*mcp.Tool, error) {
	var out []*mcp.Tool
	for t, err := range s.CS.Tools(ctx, nil) {
		if err != nil {
			return nil, s.Classify("list tools of", err)
		}
		if !appOnly(t) {
			out = append(out, t)
		}
	}
	return out, nil
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

// ListResources fetches every page of resources/list.
func (s *Session) ListResources(ctx context.Context) ([]*mcp.Resource, error) {
	return collect(s, ctx, "list resources of", s.CS.Resources(ctx, nil))
}

// ListTemplates fetches every page of resources/templates/list.
func (s *Session) ListTemplates(ctx context.Context) ([]*mcp.ResourceTemplate, error) {
	return collect(s, ctx, "list resource templates of", s.CS.ResourceTemplates(ctx, nil))
}

// ListPrompts fetches every page of prompts/list.
func (s *Session) ListPrompts(ctx context.Context) ([]*mcp.Prompt, error) {
	return collect(s, ctx, "list prompts of", s.CS.Prompts(ctx, nil))
}

func collect[T any](s *Session, _ context.Context, op string, seq func(func(*T, error) bool)) ([]*T, error) {
	out := []*T{}
	for v, err := range seq {
		if err != nil {
			return nil, s.Classify(op, err)
		}
		out = append(out, v)
	}
	return out, nil
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
	if c := closest(name, names); c != "" {
		hint = fmt.Sprintf("did you mean %q? ", c) + hint
	}
	return nil, fail.New(fail.Rejected, hint, "%s has no tool named %q", s.Label, name)
}

// CallTool sends tools/call. A tool whose execution needs client-side task
// support cannot be called by mcpc.
func (s *Session) CallTool(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	res, err := s.CS.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, s.Classify(fmt.Sprintf("call tool %q on", tool), err)
	}
	return res, nil
}

// ReadResource sends resources/read.
func (s *Session) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	res, err := s.CS.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, s.Classify(fmt.Sprintf("read %s from", uri), err)
	}
	return res, nil
}

// GetPrompt sends prompts/get.
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	res, err := s.CS.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return nil, s.Classify(fmt.Sprintf("get prompt %q from", name), err)
	}
	return res, nil
}

// schemaHint is what to do about arguments that fail the inputSchema.
const schemaHint = "fix the arguments, or pass --no-validate to let the server judge them"

// ValidateArgs checks args against the tool's inputSchema. Only local $refs
// are followed: a schema never makes mcpc fetch anything. A schema that
// cannot be resolved is reported through skipped rather than blocking the
// call, since the server validates too.
func ValidateArgs(tool *mcp.Tool, args map[string]any) (skipped string, err error) {
	if tool.InputSchema == nil {
		return "", nil
	}
	raw, err := json.Marshal(tool.InputSchema)
	if err != nil {
		return err.Error(), nil
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(raw, &sch); err != nil {
		return err.Error(), nil
	}
	res, err := sch.Resolve(nil)
	if err != nil {
		return err.Error(), nil
	}
	if args == nil {
		args = map[string]any{}
	}
	// Round-trip so numbers are float64 and nested values plain JSON types,
	// which is what the validator expects.
	var inst any
	b, _ := json.Marshal(args)
	_ = json.Unmarshal(b, &inst)
	if err := res.Validate(inst); err != nil {
		return "", fail.New(fail.Usage, schemaHint, "arguments do not match the inputSchema of tool %q: %s", tool.Name, cleanSchemaMsg(err.Error()))
	}
	return "", nil
}

var (
	schemaPathRE = regexp.MustCompile(`validating (/[^:]*): `)
	missingRE    = regexp.MustCompile(`required: missing properties: \[(.*)\]`)
)

// cleanSchemaMsg turns the validator's wording ("validating root:
// validating /properties/n: type: …") into one naming the argument.
func cleanSchemaMsg(s string) string {
	s = strings.ReplaceAll(s, "validating root: ", "")
	// jsonschema-go prints a JSON null as an invalid reflect.Value.
	s = strings.ReplaceAll(s, "<invalid reflect.Value>", "null")
	field := ""
	for _, m := range schemaPathRE.FindAllStringSubmatch(s, -1) {
		field = strings.ReplaceAll(strings.TrimPrefix(m[1], "/properties/"), "/properties/", ".")
	}
	s = schemaPathRE.ReplaceAllString(s, "")
	if m := missingRE.FindStringSubmatch(s); m != nil {
		names := strings.ReplaceAll(m[1], ",", ", ")
		where := ""
		if field != "" {
			where = " in " + strconv.Quote(field)
		}
		return "missing required argument " + names + where
	}
	s = strings.TrimPrefix(s, "type: ")
	if field != "" {
		return fmt.Sprintf("argument %q: %s", field, s)
	}
	return s
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
