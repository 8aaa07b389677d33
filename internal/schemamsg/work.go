package schemamsg

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
)

// WorkBudget is the work mcpc lets one check of a value against a schema
// cost, in the units Plan.Work counts: about a byte the validator may
// allocate (it allocates less: the count assumes every check fails). 128
// Mi is at most a few hundred milliseconds and about 100 MiB allocated
// in all; a result of 10,000 typed rows counts about 58 Mi.
const WorkBudget = 128 << 20

// perVisit is what one schema applied to one value costs the validator
// before any message: a frame, its stack entry, its annotations (80 to 200
// bytes measured on jsonschema-go v0.4.3).
const perVisit = 256

// maxWorkDepth bounds the validator's recursion (schemas applied within
// schemas, in place or to a part of the value): far past real schemas,
// and a bound on the count's own stack.
const maxWorkDepth = 2000

// Plan is a schema that does not loop, with what is needed to bound the
// work of checking a value against it.
//
// jsonschema-go's Validate takes no context and no limit, and its work is
// not bounded by the schema's size: "anyOf" (and "oneOf", "allOf", "$ref")
// applies every branch to the same value, so a chain of definitions each
// referring twice to the next costs 2^n for n definitions, and a failing
// branch's error text is kept and copied into every level above it (an
// anyOf joins them all), so memory grows as fast as time: 2 KB of schema
// crashed mcpc at 1.5 GiB. Giving up on Validate from outside does not
// help: a goroutine cannot be stopped, so an abandoned one would go on
// allocating until the process dies.
//
// So the work is counted before Validate runs, by walking the value
// through the schema as Validate does (every branch of every anyOf, oneOf
// and allOf, both "then" and "else", every applicable "properties",
// "items", "patternProperties" and so on), charging each step what
// Validate could allocate there: the frame, and on failure a message
// holding the schema's location, the keyword's values (an "enum" in
// full) and sometimes the value itself, which every enclosing level
// copies again. The count is an upper bound (Validate stops an allOf or
// "properties" at the first failure; the count does not), and the walk
// stops as soon as it passes the budget, so the count costs at most the
// budget itself. A value whose check would cost more is not checked, and
// the caller says so; one that fits is handed to Validate, which then
// ends within the budget.
type Plan struct {
	g *loopGraph
	// values is the JSON length of each "enum" and "const", counted once.
	values map[*jsonschema.Schema]int
}

// NewPlan prepares root (as jsonschema-go decoded and resolved it) for
// Work; loop is Loop's answer, and the plan nil, when the schema loops.
func NewPlan(root *jsonschema.Schema) (plan *Plan, loop string) {
	g, loop := newLoopGraph(root)
	if loop != "" {
		return nil, loop
	}
	p := &Plan{g: g, values: map[*jsonschema.Schema]int{}}
	for _, s := range g.order {
		n := 0
		if s.Enum != nil {
			b, _ := json.Marshal(s.Enum)
			n += len(b)
		}
		if s.Const != nil {
			b, _ := json.Marshal(*s.Const)
			n += len(b)
		}
		if n > 0 {
			p.values[s] = n
		}
	}
	return p, ""
}

// Work says why checking instance (plain JSON, as encoding/json decodes
// into an any) against the plan's schema would cost more than budget, or
// is "" when it would not. It returns the context's cause when ctx ends
// first: the count checks it as it goes.
func (p *Plan) Work(ctx context.Context, instance any, budget int) (over string, err error) {
	w := &workWalk{b: NewBudget(ctx, budget), p: p}
	if _, ok := w.visit(p.g.order[0], instance, 0); !ok {
		if err := w.b.Err(); err != nil {
			return "", err
		}
		return fmt.Sprintf("a check of this value would take more than %d steps, more than mcpc allows: its anyOf, oneOf, allOf and $ref branches multiply the work", budget), nil
	}
	return "", nil
}

// workWalk is one count of Work.
type workWalk struct {
	b *Budget
	p *Plan
}

// Budget is local work counted against a limit, with the invocation's
// context watched as it goes: the one way mcpc bounds what a schema can
// make it do (Plan.Work's count before a check, schemadiff's comparison).
// The unit is the counter's own; the limit is the caller's.
type Budget struct {
	ctx   context.Context
	left  int
	calls int
	err   error
}

// NewBudget is a budget of n units that also ends with ctx.
func NewBudget(ctx context.Context, n int) *Budget {
	return &Budget{ctx: ctx, left: n}
}

// Charge takes n from what is left, and says whether the work may go on:
// not once the budget is spent, nor once the context has ended (then Err
// is its cause). The context is looked at every 1024 charges, so a count
// costs little more than its arithmetic.
func (b *Budget) Charge(n int) bool {
	if b.calls++; b.calls%1024 == 0 && b.err == nil && b.ctx.Err() != nil {
		b.err = context.Cause(b.ctx)
	}
	b.left -= n
	return b.err == nil && b.left >= 0
}

// Left is what is left of the budget (negative once it is spent).
func (b *Budget) Left() int { return b.left }

// Err is the context's cause once a Charge has seen it end, else nil.
func (b *Budget) Err() error { return b.err }

// visit counts schema s applied to value v, depth levels below the
// root's check, and what it applies below. It returns the most text a
// failure there can hold (the error Validate would return, which the
// level above copies), and false to stop the count (over budget or too
// deep, or the context ended).
func (w *workWalk) visit(s *jsonschema.Schema, v any, depth int) (text int, ok bool) {
	if depth > maxWorkDepth || !w.b.Charge(perVisit) {
		return 0, false
	}
	// What a level's error holds: the deepest failure below it, except
	// that anyOf joins the failures of all its branches, and oneOf, not
	// and if keep none.
	var deepest, joined int
	if !w.inPlace(s, v, depth, &deepest, &joined) || !w.below(s, v, depth, &deepest) {
		return 0, false
	}
	// A failure here is worded "validating PTR: …"; Go's fmt builds each
	// level's text in a buffer that grows by doubling and then copies it,
	// and anyOf joins its branches' texts first: about four bytes
	// allocated for each byte of the text (measured).
	text = len("validating ") + len(w.p.g.nodes[s].ptr) + max(w.own(s, v), deepest, joined)
	if !w.b.Charge(4 * text) {
		return 0, false
	}
	return text, true
}

// apply counts sub (nil: none) applied to v one level below depth, and
// keeps the text its failure can hold in into: the largest, or (join)
// the sum. false stops the count.
func (w *workWalk) apply(sub *jsonschema.Schema, v any, depth int, into *int, join bool) bool {
	if sub == nil {
		return true
	}
	t, ok := w.visit(sub, v, depth+1)
	if join {
		*into += t
	} else {
		*into = max(*into, t)
	}
	return ok
}

// inPlace counts the schemas that apply to the same value as s: not, if,
// then, else, allOf, anyOf (its texts joined), oneOf, the references and
// the dependent schemas.
func (w *workWalk) inPlace(s *jsonschema.Schema, v any, depth int, deepest, joined *int) bool {
	var dropped int
	inPlace := []*jsonschema.Schema{s.Not, s.If, s.Then, s.Else}
	inPlace = append(inPlace, s.AllOf...)
	inPlace = append(inPlace, s.AnyOf...)
	inPlace = append(inPlace, s.OneOf...)
	for _, e := range w.p.g.nodes[s].inPlace {
		if e.via != "" {
			inPlace = append(inPlace, e.to) // $ref, $dynamicRef
		}
	}
	for _, m := range []map[string]*jsonschema.Schema{s.DependentSchemas, s.DependencySchemas} {
		for _, sub := range m {
			inPlace = append(inPlace, sub)
		}
	}
	firstAny, firstOne := 4+len(s.AllOf), 4+len(s.AllOf)+len(s.AnyOf)
	for i, sub := range inPlace {
		into, join := deepest, false
		switch {
		case i < 2 || i >= firstOne && i < firstOne+len(s.OneOf):
			into = &dropped // not, if, oneOf
		case i >= firstAny && i < firstOne:
			into, join = joined, true
		}
		if !w.apply(sub, v, depth, into, join) {
			return false
		}
	}
	return true
}

// below counts the schemas s applies to the items or the members of v.
func (w *workWalk) below(s *jsonschema.Schema, v any, depth int, deepest *int) bool {
	switch x := v.(type) {
	case []any:
		for i, item := range x {
			for _, sub := range [...]*jsonschema.Schema{at(s.PrefixItems, i), at(s.ItemsArray, i), s.Items, s.AdditionalItems, s.Contains, s.UnevaluatedItems} {
				if !w.apply(sub, item, depth, deepest, false) {
					return false
				}
			}
		}
	case map[string]any:
		for k, val := range x {
			if !w.apply(s.Properties[k], val, depth, deepest, false) {
				return false
			}
			for _, sub := range s.PatternProperties {
				if !w.b.Charge(len(k)) || !w.apply(sub, val, depth, deepest, false) {
					return false
				}
			}
			if !w.apply(s.AdditionalProperties, val, depth, deepest, false) ||
				!w.apply(s.UnevaluatedProperties, val, depth, deepest, false) ||
				!w.apply(s.PropertyNames, k, depth, deepest, false) {
				return false
			}
		}
	}
	return true
}

func at(l []*jsonschema.Schema, i int) *jsonschema.Schema {
	if i < len(l) {
		return l[i]
	}
	return nil
}

// own is the most a failure of s's own keywords on v can write: the
// keyword's values, and the value where the message prints it.
func (w *workWalk) own(s *jsonschema.Schema, v any) int {
	c := 0
	if s.Type != "" || s.Types != nil {
		want := s.Types
		if s.Type != "" {
			want = []string{s.Type}
		}
		if got := jsonTypeOf(v); got == "" || !typeAllowed(got, want) {
			c += 64 + w.printed(v)
		}
	}
	if vals := w.p.values[s]; vals > 0 {
		// Compared with every value, and all of them printed on failure.
		c += 2*vals + w.printed(v)
	}
	if str, ok := v.(string); ok && (s.MinLength != nil || s.MaxLength != nil || s.Pattern != "") {
		c += 2*len(str) + len(s.Pattern)
	}
	if _, ok := v.([]any); ok && (s.UniqueItems || s.Contains != nil) {
		c += w.printed(v)
	}
	if m, ok := v.(map[string]any); ok {
		for _, r := range s.Required {
			c += len(r) + 4
		}
		if s.AdditionalProperties != nil {
			for k := range m {
				c += len(k) + 4
			}
		}
	}
	// anyOf and oneOf name each branch ("<anonymous schema>").
	c += 20 * (len(s.AnyOf) + len(s.OneOf))
	return c + 48
}

// printed is about how long v is when a message prints it (Go's %v of a
// map or a slice is about its JSON length), counting at most what is left
// of the budget; the walk over v is charged too.
func (w *workWalk) printed(v any) int {
	n := 0
	var walk func(any) bool
	walk = func(v any) bool {
		if n > w.b.Left() {
			return false
		}
		switch x := v.(type) {
		case map[string]any:
			n += 2
			for k, e := range x {
				n += len(k) + 2
				if !walk(e) {
					return false
				}
			}
		case []any:
			n += 2
			for _, e := range x {
				n++
				if !walk(e) {
					return false
				}
			}
		case string:
			n += len(x) + 2
		case float64:
			n += len(strconv.FormatFloat(x, 'g', -1, 64))
		default:
			n += 5
		}
		return true
	}
	walk(v)
	w.b.Charge(n)
	return n
}

// DecodeBudget bounds DecodeWork: about a second of jsonschema-go's
// decoding at most, and far past any real schema (a 400 KB one with a
// 30,000-value enum is about 1.2 Mi).
const DecodeBudget = 16 << 20

// DecodeWork is what decoding the JSON text schema into a
// jsonschema.Schema costs: every byte once for each level it is nested
// in, as the library's decoder scans each subschema's whole text again
// (twice or more) when it decodes that subschema. Nesting makes it
// quadratic: 5,000 levels of "items", 150 KB, took 20 s. The count stops
// once it passes DecodeBudget. over says why the schema is not decoded,
// or is "".
func DecodeWork(schema []byte) (over string) {
	cost, depth, deepest := 0, 0, 0
	var text Strings
	for _, c := range schema {
		cost += depth
		switch {
		case !text.Outside(c):
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
		if cost > DecodeBudget {
			return fmt.Sprintf("decoding it would take more than %d steps: %d bytes, nested at least %d levels deep", DecodeBudget, len(schema), deepest)
		}
	}
	return ""
}

// Strings follows JSON text byte by byte, knowing which bytes are inside
// a string (quotes and escapes included): what a pass over the text that
// reads only its structure needs.
type Strings struct{ in, escaped bool }

// StringEnd is the offset just past the JSON string that opens at b[i] (a
// quote), or len(b) when it does not end: where Strings, fed the same bytes,
// would be outside again (FuzzStringEnd holds that). It looks a quote at a
// time rather than a byte at a time, for a parser that holds the whole text:
// a quote ends the string unless an odd run of backslashes escapes it.
func StringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		q := j + k
		n := 0
		for q-n-1 > i && b[q-n-1] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// In says whether the bytes taken so far end inside a string: after its
// opening quote, before its closing one.
func (s *Strings) In() bool { return s.in }

// Outside takes the next byte c, and says whether it is outside every
// string: punctuation, a literal or whitespace.
func (s *Strings) Outside(c byte) bool {
	switch {
	case s.escaped:
		s.escaped = false
	case s.in:
		s.escaped = c == '\\'
		s.in = c != '"'
	case c == '"':
		s.in = true
	default:
		return true
	}
	return false
}
