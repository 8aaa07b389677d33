package elicit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/schemamsg"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Answers are what the command line answers with: --answer, --answers and
// --yes.
type Answers struct {
	// Given returns the --answer and --answers values, each key=value word
	// typed by the JSON Schema types of its field (types, by field name);
	// nil when none were given.
	Given func(types map[string][]string) map[string]any
	// Keys lists the fields answered, sorted, for the note on declining.
	Keys []string
	Yes  bool
}

// NewAnswerer answers with answers, then asks on term (nil when there is
// no terminal to ask on); it writes notes and questions to stderr, a URL
// as JSON when json is set.
func NewAnswerer(answers *Answers, term *Prompter, stderr io.Writer, json bool) *Answerer {
	return &Answerer{opts: answers, term: term, stderr: stderr, json: json}
}

// Answerer answers elicitations: from --answer/--answers, then --yes,
// then a person at the terminal; otherwise it declines and says how to
// answer next time.
type Answerer struct {
	opts   *Answers
	term   *Prompter // nil when there is no terminal to ask on
	stderr io.Writer
	json   bool
	mu     sync.Mutex // one question at a time
}

// Log shows a server's log message on stderr.
func (a *Answerer) Log(level, logger string, data any) {
	text, ok := data.(string)
	switch raw, isRaw := data.(json.RawMessage); {
	case isRaw && len(raw) > 0 && raw[0] == '"':
		json.Unmarshal(raw, &text) // a string's text, as a decoded one shows
	case !ok:
		b, _ := json.Marshal(data) // a RawMessage compacted, as it came
		text = string(b)
	}
	who := "server " + level
	if logger != "" {
		who += " (" + logger + ")"
	}
	fmt.Fprintf(a.stderr, "mcpc: %s: %s\n", textsafe.OneLine(who), textsafe.OneLine(text))
}

// Elicit answers one elicitation request, one at a time.
func (a *Answerer) Elicit(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	mode := p.Mode
	if mode == "" {
		mode = "form"
		if p.URL != "" {
			mode = "url"
		}
	}
	switch mode {
	case "form":
		return a.form(ctx, server, p)
	case "url":
		return a.url(ctx, server, p)
	}
	return nil, fail.New(fail.Protocol, "", "%s asked for input in mode %q, which mcpc does not know", server, mode)
}

// form answers a form-mode elicitation.
func (a *Answerer) form(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	fields, err := formFields(p.RequestedSchema)
	if err != nil {
		return nil, fail.Wrap(fail.Protocol, err, "", "%s asked for input with a schema mcpc cannot use", server)
	}
	content, missing := a.given(fields)
	for _, f := range fields {
		if v, ok := content[f.name]; ok {
			if err := f.check(v); err != nil {
				return nil, fail.New(fail.Usage, "the field takes "+f.summary(), "%s: answer for field %q: %s", server, f.name, err)
			}
		}
	}
	switch {
	case len(missing) == 0 && (len(content) > 0 || a.opts.Yes):
	case a.opts.Yes:
		for _, f := range missing {
			if f.def != nil {
				content[f.name] = f.def
			} else if f.required {
				return nil, fail.New(fail.Usage, "answer it with "+f.answerFlag(),
					"%s asks for field %q, which has no default: --yes cannot answer it", server, f.name)
			}
		}
	case a.term != nil:
		return a.term.form(ctx, server, p.Message, fields, content, missing)
	case len(content) > 0:
		// Answering is accepting a form pre-filled with its defaults (as
		// the SDK does for 2025 servers anyway): the same on both eras.
		for _, f := range missing {
			switch {
			case f.def != nil:
				content[f.name] = f.def
			case f.required:
				return nil, fail.New(fail.Usage, "answer it with "+f.answerFlag(),
					"%s asks for required field %q, which has no answer", server, f.name)
			}
		}
	default:
		a.describe(server, p.Message, fields)
		if keys := a.opts.Keys; len(keys) > 0 {
			textsafe.Note(a.stderr, "declined: the answers given (%s) name none of these fields, and there is no terminal to ask on", strings.Join(keys, ", "))
		} else {
			textsafe.Note(a.stderr, "declined: no answers given, and no terminal to ask on")
		}
		fmt.Fprintf(a.stderr, "mcpc: hint: %s\n", declineHint(fields))
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// given collects the command-line answers for fields, typed by the schema
// as key=value tool arguments are; missing lists the fields without one.
func (a *Answerer) given(fields []*field) (content map[string]any, missing []*field) {
	content = map[string]any{}
	types := map[string][]string{}
	for _, f := range fields {
		types[f.name] = f.types
	}
	var merged map[string]any
	if a.opts.Given != nil {
		merged = a.opts.Given(types)
	}
	for _, f := range fields {
		if v, ok := merged[f.name]; ok {
			content[f.name] = plainJSON(v)
		} else {
			missing = append(missing, f)
		}
	}
	return content, missing
}

// url answers a URL-mode elicitation. mcpc never opens a browser: it shows
// the URL (escape-stripped, as any server text) for the user to open.
func (a *Answerer) url(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	u, msg := textsafe.StripControl(p.URL), textsafe.StripControl(p.Message)
	action := "decline"
	if a.opts.Yes {
		action = "accept"
	}
	if a.json {
		b, _ := json.Marshal(map[string]any{"elicitation": map[string]any{
			"mode": "url", "server": server, "message": msg, "url": u, "elicitationId": p.ElicitationID,
		}})
		fmt.Fprintf(a.stderr, "%s\n", b)
	} else {
		fmt.Fprintf(a.stderr, "mcpc: %s asks you to open a URL: %s\n", server, textsafe.OneLine(msg))
		fmt.Fprintf(a.stderr, "mcpc:   %s\n", textsafe.OneLine(u))
	}
	switch {
	case a.opts.Yes:
	case a.term != nil:
		ok, err := a.term.confirm(ctx, "Open it in your browser yourself, then press Enter to go on (n declines): ", true)
		if err != nil {
			return nil, err
		}
		if ok {
			action = "accept"
		}
	default:
		textsafe.Note(a.stderr, "declined: no terminal to ask on")
		fmt.Fprintf(a.stderr, "mcpc: hint: pass --yes to accept, then open the URL yourself\n")
	}
	return &mcp.ElicitResult{Action: action}, nil
}

// describe prints what the server asks, one line per field.
func (a *Answerer) describe(server, message string, fields []*field) {
	fmt.Fprintf(a.stderr, "mcpc: %s asks: %s\n", server, textsafe.OneLine(textsafe.StripControl(message)))
	for _, f := range fields {
		fmt.Fprintf(a.stderr, "mcpc:   %s\n", f.line())
	}
}

// declineHint shows the flags that would answer: the required fields
// without a default, else the optional ones, and --yes for the rest.
func declineHint(fields []*field) string {
	var required, optional []string
	for _, f := range fields {
		switch {
		case f.def != nil:
		case f.required:
			required = append(required, f.answerFlag())
		default:
			optional = append(optional, f.answerFlag())
		}
	}
	switch {
	case len(required) > 0 && len(required) < len(fields):
		return "answer with " + strings.Join(required, " ") + ", and pass --yes to take the defaults of the others"
	case len(required) > 0:
		return "answer with " + strings.Join(required, " ")
	case len(optional) > 0:
		return "answer with " + strings.Join(optional, " ") + ", or pass --yes to accept"
	}
	return "pass --yes to accept the defaults"
}

// field is one property of a form-mode elicitation's requestedSchema (a
// flat object of primitives, enums and multi-select enums).
type field struct {
	name     string
	title    string
	desc     string
	types    []string
	required bool
	def      any
	choices  []choice // single- or multi-select enum
	multi    bool
	schema   *jsonschema.Resolved
	raw      map[string]any
}

type choice struct{ value, title string }

// formFields lists the requested fields: required ones in the schema's
// order first, then the others by name (JSON objects keep no order).
func formFields(schema any) ([]*field, error) {
	var root struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if schema != nil {
		b, err := json.Marshal(schema)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &root); err != nil {
			return nil, err
		}
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range root.Properties {
			if !slices.Contains(root.Required, k) && !yield(k) {
				return
			}
		}
	})
	var order []string
	for _, r := range root.Required {
		if _, ok := root.Properties[r]; ok && !slices.Contains(order, r) {
			order = append(order, r)
		}
	}
	var out []*field
	for _, name := range append(order, names...) {
		f, err := newField(name, root.Properties[name], slices.Contains(root.Required, name))
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func newField(name string, raw map[string]any, required bool) (*field, error) {
	f := &field{name: name, required: required, def: raw["default"], raw: raw}
	f.title, _ = raw["title"].(string)
	f.desc, _ = raw["description"].(string)
	switch t := raw["type"].(type) {
	case string:
		f.types = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				f.types = append(f.types, s)
			}
		}
	}
	f.choices = choicesOf(raw)
	if items, ok := raw["items"].(map[string]any); ok {
		f.choices, f.multi = choicesOf(items), true
	}
	b, _ := json.Marshal(raw)
	var sch jsonschema.Schema
	if err := json.Unmarshal(b, &sch); err != nil {
		return nil, fmt.Errorf("field %q: %v", name, err)
	}
	res, err := sch.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("field %q: %v", name, err)
	}
	if loop := schemamsg.Loop(&sch); loop != "" {
		return nil, fmt.Errorf("field %q: %s", name, loop) // it would crash the validator
	}
	f.schema = res
	return f, nil
}

// choicesOf reads enum (with legacy enumNames) or titled oneOf/anyOf.
func choicesOf(s map[string]any) []choice {
	var out []choice
	if enum, ok := s["enum"].([]any); ok {
		names, _ := s["enumNames"].([]any)
		for i, v := range enum {
			c := choice{value: fmt.Sprint(v)}
			if i < len(names) {
				c.title, _ = names[i].(string)
			}
			out = append(out, c)
		}
		return out
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		list, _ := s[key].([]any)
		for _, e := range list {
			m, _ := e.(map[string]any)
			if v, ok := m["const"]; ok {
				title, _ := m["title"].(string)
				out = append(out, choice{value: fmt.Sprint(v), title: title})
			}
		}
	}
	return out
}

// check validates one answer against its property schema, worded as a
// tool's arguments are.
func (f *field) check(v any) error {
	if err := f.schema.Validate(v); err != nil {
		return errors.New(schemamsg.Mismatch(err, map[string]any(f.raw), v, "value"))
	}
	return nil
}

// summary says what kind of value the field takes, for humans.
func (f *field) summary() string {
	var parts []string
	switch {
	case len(f.choices) > 0 && f.multi:
		parts = append(parts, "any of "+f.choiceList())
	case len(f.choices) > 0:
		parts = append(parts, "one of "+f.choiceList())
	case len(f.types) > 0:
		t := strings.Join(f.types, " or ")
		if fm, ok := f.raw["format"].(string); ok {
			t += " (" + fm + ")"
		}
		lo, hasLo := f.raw["minimum"]
		hi, hasHi := f.raw["maximum"]
		if hasLo && hasHi {
			t += fmt.Sprintf(" %v..%v", lo, hi)
		}
		parts = append(parts, t)
	}
	if f.required {
		parts = append(parts, "required")
	}
	if f.def != nil {
		b, _ := json.Marshal(f.def)
		parts = append(parts, "default "+string(b))
	}
	return strings.Join(parts, ", ")
}

func (f *field) choiceList() string {
	var vs []string
	for _, c := range f.choices {
		vs = append(vs, c.value)
	}
	return strings.Join(vs, "|")
}

// line describes the field on one line: name, kind, title, description.
func (f *field) line() string {
	s := f.name + " (" + f.summary() + ")"
	var about []string
	for _, t := range []string{f.title, f.desc} {
		if t != "" {
			about = append(about, t)
		}
	}
	if len(about) > 0 {
		s += ": " + strings.Join(about, " — ")
	}
	return textsafe.OneLine(textsafe.StripControl(s))
}

// answerFlag is the --answer flag that would answer the field.
func (f *field) answerFlag() string {
	switch {
	case f.multi || slices.Contains(f.types, "array"):
		return fmt.Sprintf(`--answer '%s:=["…"]'`, f.name)
	case len(f.choices) > 0:
		return fmt.Sprintf("--answer %s=%s", f.name, f.choiceList())
	case slices.Contains(f.types, "boolean"):
		return fmt.Sprintf("--answer %s=true|false", f.name)
	case slices.Contains(f.types, "integer"), slices.Contains(f.types, "number"):
		return fmt.Sprintf("--answer %s=N", f.name)
	}
	return fmt.Sprintf("--answer %s=TEXT", f.name)
}

// plainJSON turns exact numbers (json.Number) into what the JSON Schema
// validator and the wire expect.
func plainJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}
