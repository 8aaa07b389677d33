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
	"strconv"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/schemamsg"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// Version is the snapshot format this mcpc writes and reads. A later mcpc
// that changes the format bumps it and keeps reading the old ones; this one
// refuses a newer one by name rather than misreading it.
const Version = 1

// MaxSize bounds a snapshot document: what mcpc snapshot writes and what
// mcpc diff reads, so that diff reads every snapshot mcpc writes.
const MaxSize = 64 << 20

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

// Tool is one tool as a snapshot keeps it. The schemas stay JSON text
// (numbers kept exactly), decoded one tool at a time when compared: a
// snapshot of many tools then costs about its own size in memory, where
// all of its schemas decoded cost ten times that.
type Tool struct {
	Annotations  Annotations     `json:"annotations,omitempty"`
	Description  string          `json:"description,omitempty"`
	Execution    *Execution      `json:"execution,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	Name         string          `json:"name"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Title        string          `json:"title,omitempty"`
}

// Annotations are a tool's annotations, their numbers kept exactly.
type Annotations map[string]any

// UnmarshalJSON decodes the annotations with json.Number numbers.
func (a *Annotations) UnmarshalJSON(data []byte) error {
	var m map[string]any
	if err := decode(data, &m); err != nil {
		return err
	}
	*a = m
	return nil
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
		if err := json.Unmarshal(raw, &lists); err != nil {
			return nil, fmt.Errorf("the server's list of %s: %v", what, strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	s.Tools = append(s.Tools, lists.Tools...)
	s.Prompts = append(s.Prompts, lists.Prompts...)
	s.ResourceTemplates = append(s.ResourceTemplates, lists.ResourceTemplates...)
	for i := range s.Tools {
		t := &s.Tools[i]
		var err error
		if t.InputSchema, err = normalSchema(t.InputSchema); err == nil {
			t.OutputSchema, err = normalSchema(t.OutputSchema)
		}
		if err != nil {
			return nil, fmt.Errorf("the server's list of tools: tool %q: %v", t.Name, err)
		}
	}
	s.normalize()
	return s, nil
}

// normalSchema is a schema as a snapshot keeps it: compact, keys sorted,
// its sets sorted (sortSets), nil for none.
func normalSchema(raw json.RawMessage) (json.RawMessage, error) {
	v, err := decodeSchema(raw)
	if v == nil || err != nil {
		return nil, err
	}
	sortSets(v, 0)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// decodeSchema decodes a schema's text, numbers as json.Number; no text
// is nil.
func decodeSchema(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var v any
	err := decode(raw, &v)
	return v, err
}

// Load reads a snapshot document: a JSON text that is known to be valid
// (the caller has located any syntax error). The errors say what is wrong
// without the file's name, which the caller adds. The document is
// decoded once, into the snapshot, schemas kept as text.
func Load(data []byte) (*Snapshot, error) {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, errors.New("not an mcpc snapshot: the document is not a JSON object")
	}
	// The version first, read alone (the rest is skipped, not decoded):
	// a later format is refused by name before it is misread.
	var head struct {
		Version json.RawMessage `json:"mcpcSnapshot"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not an mcpc snapshot: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	if head.Version == nil {
		return nil, errors.New(`not an mcpc snapshot: it has no "mcpcSnapshot" format version`)
	}
	if ver := string(head.Version); ver != strconv.Itoa(Version) {
		if i, err := strconv.ParseInt(ver, 10, 64); err == nil && i > Version {
			return nil, fmt.Errorf("snapshot format %d is newer than this mcpc reads (format %d)", i, Version)
		}
		var b bytes.Buffer
		if json.Compact(&b, head.Version) == nil {
			ver = b.String()
		}
		return nil, fmt.Errorf("unknown snapshot format %s (this mcpc reads format %d)", ver, Version)
	}
	s := &Snapshot{}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("not an mcpc snapshot: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	for i := range s.Tools {
		t := &s.Tools[i]
		if t.Name == "" {
			return nil, fmt.Errorf("not an mcpc snapshot: tools[%d] has no name", i)
		}
		// As FromLists keeps them, so that an unchanged schema is the
		// same text on both sides of a comparison, whichever side a
		// server is.
		t.InputSchema, t.OutputSchema = compactInPlace(t.InputSchema), compactInPlace(t.OutputSchema)
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

// compactInPlace drops the whitespace between the tokens of the JSON text
// b, in b's own memory, and returns what it holds then.
func compactInPlace(b []byte) []byte {
	n := 0
	var text schemamsg.Strings
	for _, c := range b {
		if text.Outside(c) && (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			continue
		}
		b[n] = c
		n++
	}
	return b[:n]
}

// indentDepth is how many levels of a snapshot are indented: the tools'
// schemas 28 levels deep, far past real ones. Below it a value is written
// compact on its line, so that indentation cannot multiply a schema's
// size: 4,900 nested levels of 400 KB, indented, were a 240 MB file.
const indentDepth = 32

// Marshal encodes the snapshot as the document mcpc writes: keys sorted,
// "<" left as it is, a final newline; indented by two spaces down to
// indentDepth levels (json.Indent's bytes for every real snapshot), and
// compact below. A document indented past MaxSize is written compact; one
// that is still larger is an error, as mcpc diff could not read it.
func (s *Snapshot) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	compact := b.Bytes()
	if len(compact) > MaxSize {
		return nil, fmt.Errorf("the snapshot would be %s, more than the %s mcpc diff reads", units.SizeText(int64(len(compact))), units.SizeText(MaxSize))
	}
	if out, ok := indentCapped(compact, indentDepth, MaxSize); ok {
		return out, nil
	}
	return compact, nil
}

// indentCapped indents compact JSON text (ending in a newline) by two
// spaces as json.Indent does, down to depth levels, writing what is deeper
// as it is. It gives up (false) once the result would pass limit.
func indentCapped(src []byte, depth, limit int) ([]byte, bool) {
	out := make([]byte, 0, min(len(src)+len(src)/2, limit))
	level := 0       // containers open
	pending := false // a container just opened at an indented level
	newline := func(n int) {
		out = append(out, '\n')
		for range n {
			out = append(out, ' ', ' ')
		}
	}
	for i := 0; i < len(src); i++ {
		if len(out) > limit {
			return nil, false
		}
		c := src[i]
		if pending {
			pending = false
			if c != ']' && c != '}' {
				newline(level)
			}
		}
		switch c {
		case '"':
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\\' {
					j++
				}
			}
			out = append(out, src[i:j+1]...)
			i = j
			continue
		case '{', '[':
			out = append(out, c)
			level++
			pending = level <= depth
			continue
		case '}', ']':
			if level <= depth && src[i-1] != '{' && src[i-1] != '[' {
				newline(level - 1)
			}
			level--
		case ',':
			out = append(out, c)
			if level <= depth {
				newline(level)
			}
			continue
		case ':':
			out = append(out, c)
			if level <= depth {
				out = append(out, ' ')
			}
			continue
		}
		out = append(out, c)
	}
	return out, len(out) <= limit
}

// normalize sorts what a server may list in any order: the lists by name,
// prompt arguments by name (the schemas' sets are sorted by normalSchema).
func (s *Snapshot) normalize() {
	slices.SortStableFunc(s.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(s.Prompts, func(a, b Prompt) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(s.ResourceTemplates, func(a, b Template) int { return strings.Compare(a.URITemplate, b.URITemplate) })
	for i := range s.Tools {
		t := &s.Tools[i]
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

// sortSets sorts the set-valued keywords ("required", a "type" array) of
// schema s and of every schema below it; enum values keep their order,
// which a form shows. It knows which keywords hold schemas (a property
// may be named "required" or "type").
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
