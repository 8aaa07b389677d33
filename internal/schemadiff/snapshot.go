// Package schemadiff is mcpc's schema-drift check: the snapshot document of
// a server's tools, prompts and resource templates, and the comparison of
// two snapshots, schemas compared as JSON Schema (2020-12 and draft-07,
// local $refs followed), each difference classified as breaking or
// compatible. It is pure data work: the commands fetch and print.
package schemadiff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Version is the snapshot format this mcpc writes and reads. A later mcpc
// that changes the format bumps it and keeps reading the old ones; this one
// refuses a newer one by name rather than misreading it.
const Version = 1

// Snapshot is the stable document `mcpc snapshot` writes. Its fields are
// declared in alphabetical order, and its maps are encoded with sorted
// keys, so the document's keys are sorted at every level; its lists are
// sorted by name. It holds what a client depends on, nothing that varies
// between two listings of the same server (no cursor, cache hint, _meta
// or icons).
type Snapshot struct {
	MCPCSnapshot      int        `json:"mcpcSnapshot"`
	Prompts           []Prompt   `json:"prompts"`
	ResourceTemplates []Template `json:"resourceTemplates"`
	Tools             []Tool     `json:"tools"`
}

// Tool is one tool as a snapshot keeps it; the schemas are JSON values as
// decoded with json.Decoder.UseNumber (numbers kept exactly).
type Tool struct {
	Annotations  map[string]any `json:"annotations,omitempty"`
	Description  string         `json:"description,omitempty"`
	Execution    *Execution     `json:"execution,omitempty"`
	InputSchema  any            `json:"inputSchema,omitempty"`
	Name         string         `json:"name"`
	OutputSchema any            `json:"outputSchema,omitempty"`
	Title        string         `json:"title,omitempty"`
}

// Execution is a tool's execution object: whether it runs as a task.
type Execution struct {
	TaskSupport string `json:"taskSupport,omitempty"`
}

// Prompt is one prompt and its arguments.
type Prompt struct {
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Description string           `json:"description,omitempty"`
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Description string `json:"description,omitempty"`
	Name        string `json:"name"`
	Required    bool   `json:"required,omitempty"`
	Title       string `json:"title,omitempty"`
}

// Template is one resource template, known by its URI template.
type Template struct {
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	URITemplate string `json:"uriTemplate"`
}

// FromLists builds the snapshot of the list results a server sent (each
// {"tools":[…]}, {"prompts":[…]}, {"resourceTemplates":[…]}, all pages
// joined); a nil list is a kind the server does not offer.
func FromLists(tools, prompts, templates json.RawMessage) (*Snapshot, error) {
	s := &Snapshot{MCPCSnapshot: Version, Tools: []Tool{}, Prompts: []Prompt{}, ResourceTemplates: []Template{}}
	var lists struct {
		Tools             []Tool     `json:"tools"`
		Prompts           []Prompt   `json:"prompts"`
		ResourceTemplates []Template `json:"resourceTemplates"`
	}
	for what, raw := range map[string]json.RawMessage{"tools": tools, "prompts": prompts, "resource templates": templates} {
		if raw == nil {
			continue
		}
		if err := decode(raw, &lists); err != nil {
			return nil, fmt.Errorf("the server's list of %s: %v", what, err)
		}
	}
	s.Tools = append(s.Tools, lists.Tools...)
	s.Prompts = append(s.Prompts, lists.Prompts...)
	s.ResourceTemplates = append(s.ResourceTemplates, lists.ResourceTemplates...)
	s.normalize()
	return s, nil
}

// Load reads a snapshot from its decoded JSON (numbers as json.Number).
// The errors say what is wrong without the file's name, which the caller
// adds.
func Load(v any) (*Snapshot, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("not an mcpc snapshot: the document is not a JSON object")
	}
	ver, ok := obj["mcpcSnapshot"]
	if !ok {
		return nil, errors.New(`not an mcpc snapshot: it has no "mcpcSnapshot" format version`)
	}
	n, ok := ver.(json.Number)
	if !ok || n.String() != fmt.Sprint(Version) {
		if i, err := n.Int64(); ok && err == nil && i > Version {
			return nil, fmt.Errorf("snapshot format %d is newer than this mcpc reads (format %d)", i, Version)
		}
		return nil, fmt.Errorf("unknown snapshot format %s (this mcpc reads format %d)", jsonText(ver), Version)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{}
	if err := decode(data, s); err != nil {
		return nil, fmt.Errorf("not an mcpc snapshot: %v", err)
	}
	for i, t := range s.Tools {
		if t.Name == "" {
			return nil, fmt.Errorf("not an mcpc snapshot: tools[%d] has no name", i)
		}
	}
	for i, p := range s.Prompts {
		if p.Name == "" {
			return nil, fmt.Errorf("not an mcpc snapshot: prompts[%d] has no name", i)
		}
	}
	for i, t := range s.ResourceTemplates {
		if t.URITemplate == "" {
			return nil, fmt.Errorf("not an mcpc snapshot: resourceTemplates[%d] has no uriTemplate", i)
		}
	}
	s.normalize()
	return s, nil
}

// decode is json.Unmarshal keeping numbers exact, with the decoder's
// "json: " prefix dropped (the caller says what was being read).
func decode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// Marshal encodes the snapshot as the document mcpc writes: indented, keys
// sorted, "<" left as it is, a final newline.
func (s *Snapshot) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// normalize sorts what a server may list in any order: the lists by name,
// prompt arguments by name, and in schemas the sets ("required", a "type"
// array). Enum values keep their order, which a form shows.
func (s *Snapshot) normalize() {
	slices.SortStableFunc(s.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(s.Prompts, func(a, b Prompt) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(s.ResourceTemplates, func(a, b Template) int { return strings.Compare(a.URITemplate, b.URITemplate) })
	for i := range s.Tools {
		t := &s.Tools[i]
		sortSets(t.InputSchema, 0)
		sortSets(t.OutputSchema, 0)
		if t.Execution != nil && t.Execution.TaskSupport == "" {
			t.Execution = nil
		}
	}
	for i := range s.Prompts {
		slices.SortStableFunc(s.Prompts[i].Arguments, func(a, b PromptArgument) int { return strings.Compare(a.Name, b.Name) })
	}
}

// maxDepth bounds the walks over a schema's nesting: the JSON decoder
// allows 10000 levels, far past any real schema.
const maxDepth = 1000

// sortSets sorts the set-valued keywords of schema s and of every schema
// below it, knowing which keywords hold schemas (a property may be named
// "required" or "type").
func sortSets(s any, depth int) {
	m, ok := s.(map[string]any)
	if !ok || depth > maxDepth {
		return
	}
	for _, k := range []string{"required", "type"} {
		if l, ok := m[k].([]any); ok && allStrings(l) {
			slices.SortFunc(l, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
		}
	}
	forSubschemas(m, func(sub any) { sortSets(sub, depth+1) })
}

// forSubschemas calls f with each schema directly below m.
func forSubschemas(m map[string]any, f func(any)) {
	for _, k := range []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"} {
		if mm, ok := m[k].(map[string]any); ok {
			for _, v := range mm {
				f(v)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties", "additionalItems", "unevaluatedProperties", "unevaluatedItems",
		"contains", "propertyNames", "not", "if", "then", "else"} {
		if v, ok := m[k]; ok {
			if l, ok := v.([]any); ok { // draft-07 tuple items
				for _, e := range l {
					f(e)
				}
				continue
			}
			f(v)
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
		if l, ok := m[k].([]any); ok {
			for _, e := range l {
				f(e)
			}
		}
	}
}

func allStrings(l []any) bool {
	for _, v := range l {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

// jsonText is v as compact JSON, for messages.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
