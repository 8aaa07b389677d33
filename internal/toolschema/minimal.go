// This file makes the smallest value a schema admits, for mcpc mock: the
// structuredContent of a tool it answers for without being told what.

package toolschema

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/schemamsg"
)

// The bounds of making one value: a schema's text is a server's, and a
// schema that requires itself (a node that requires a child node) or
// multiplies (arrays of minItems 1000 of arrays of 1000) would otherwise
// never end or fill memory.
const (
	maxMinimalDepth = 64      // nested values
	maxMinimalSteps = 100_000 // subschemas visited
	maxMinimalBytes = 1 << 20 // bytes of the strings made, all together
	maxMinimalItems = 1000    // one array's minItems, one object's minProperties
)

// errUnbounded is a schema whose value would pass the bounds.
var errUnbounded = errors.New("its smallest value is larger or deeper than mcpc makes (nest fewer required values, or lower minItems and minLength)")

// MinimalValue is a small value the JSON Schema text schema admits:
// const or the first enum value; otherwise the first type given (an
// object when untyped with properties), with every required property,
// minItems items, minLength characters, minimum (or 0 within the
// bounds), the first branch of anyOf and oneOf, allOf's objects merged,
// local $refs followed. The value is checked against the schema before
// it is returned (when the check can use the schema): one the schema
// refuses (a pattern, uniqueItems, not) is an error saying why.
func MinimalValue(ctx context.Context, schema json.RawMessage) (json.RawMessage, error) {
	if over := schemamsg.DecodeWork(schema); over != "" {
		return nil, errors.New(over)
	}
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	g := &minimal{root: root}
	v, err := g.value(root, 0)
	if err != nil {
		return nil, err
	}
	if v == nil && !g.admitsNull {
		v = map[string]any{} // an untyped schema: structuredContent is an object
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	c := compile(json.RawMessage(schema))
	mismatch, skipped, err := check(ctx, c, out, "field")
	switch {
	case err != nil:
		return nil, err
	case skipped != "":
		// A schema the check cannot use (one that loops, one past the
		// check's budget) is not one a client can check either: the
		// value stands as made.
		return out, nil
	case mismatch != "":
		return nil, fmt.Errorf("the smallest value mcpc makes does not match it: %s", mismatch)
	}
	return out, nil
}

// minimal is one MinimalValue's walk: the root $refs start from, and
// what it has spent of its bounds.
type minimal struct {
	root       any
	steps      int
	bytes      int
	admitsNull bool // the top schema said null, so nil is the value
}

func (g *minimal) value(s any, depth int) (any, error) {
	g.steps++
	if depth > maxMinimalDepth || g.steps > maxMinimalSteps || g.bytes > maxMinimalBytes {
		return nil, errUnbounded
	}
	m, ok := s.(map[string]any)
	if !ok {
		if s == false {
			return nil, errors.New("a subschema is false: no value matches it")
		}
		return nil, nil // true, or not a schema: anything
	}
	if ref, ok := m["$ref"].(string); ok {
		target, err := g.resolve(ref)
		if err != nil {
			return nil, err
		}
		return g.value(target, depth+1)
	}
	if c, ok := m["const"]; ok {
		return c, nil
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0], nil
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if l, ok := m[k].([]any); ok && len(l) > 0 {
			return g.branch(l, depth)
		}
	}
	if l, ok := m["allOf"].([]any); ok && len(l) > 0 {
		return g.allOf(m, l, depth)
	}
	return g.typed(m, typeOf(m), depth)
}

// branch is the value of the first of anyOf's (or oneOf's) branches
// that has one within the bounds: a recursive first branch does not hide
// a plain second one.
func (g *minimal) branch(l []any, depth int) (any, error) {
	var err error
	for _, b := range l {
		var v any
		if v, err = g.value(b, depth+1); err == nil {
			return v, nil
		}
	}
	return nil, err
}

// allOf is the value of m and each of its allOf branches: their objects
// merged, else the first value made.
func (g *minimal) allOf(m map[string]any, l []any, depth int) (any, error) {
	rest := make(map[string]any, len(m))
	for k, v := range m {
		if k != "allOf" {
			rest[k] = v
		}
	}
	var first any
	var merged map[string]any
	for _, b := range append([]any{rest}, l...) {
		v, err := g.value(b, depth+1)
		if err != nil {
			return nil, err
		}
		if obj, ok := v.(map[string]any); ok {
			if merged == nil {
				merged = map[string]any{}
			}
			for k, x := range obj {
				merged[k] = x
			}
		} else if first == nil {
			first = v
		}
	}
	if merged != nil {
		return merged, nil
	}
	return first, nil
}

// typeOf is the type m's value is made as: the first non-null type it
// names, else what its keywords imply.
func typeOf(m map[string]any) string {
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
		if len(t) > 0 {
			return "null"
		}
	}
	has := func(keys ...string) bool {
		return slices.ContainsFunc(keys, func(k string) bool { _, ok := m[k]; return ok })
	}
	switch {
	case has("properties", "required", "additionalProperties", "patternProperties", "minProperties"):
		return "object"
	case has("items", "prefixItems", "minItems", "contains"):
		return "array"
	case has("minLength", "maxLength", "pattern", "format"):
		return "string"
	case has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		return "number"
	}
	return ""
}

func (g *minimal) typed(m map[string]any, t string, depth int) (any, error) {
	switch t {
	case "object":
		return g.object(m, depth)
	case "array":
		return g.array(m, depth)
	case "string":
		return g.text(m)
	case "integer", "number":
		return number(m, t == "integer")
	case "boolean":
		return false, nil
	case "null":
		if depth == 0 {
			g.admitsNull = true
		}
	}
	return nil, nil
}

// object has every required property, and more of properties (in name
// order) up to minProperties.
func (g *minimal) object(m map[string]any, depth int) (any, error) {
	props, _ := m["properties"].(map[string]any)
	required := asList(m["required"])
	if g.steps+len(required) > maxMinimalSteps {
		return nil, errUnbounded // each is a value to make
	}
	var names []string
	seen := make(map[string]bool, len(required))
	for _, r := range required {
		if s, ok := r.(string); ok && !seen[s] {
			seen[s] = true
			names = append(names, s)
		}
	}
	if n, ok := count(m["minProperties"]); ok && n > len(names) {
		if n > maxMinimalItems {
			return nil, errUnbounded
		}
		optional := make([]string, 0, len(props))
		for k := range props {
			if !seen[k] {
				optional = append(optional, k)
			}
		}
		slices.Sort(optional)
		names = append(names, optional[:min(len(optional), n-len(names))]...)
	}
	out := make(map[string]any, len(names))
	for _, name := range names {
		sub, ok := props[name]
		if !ok {
			sub = m["additionalProperties"]
		}
		v, err := g.value(sub, depth+1)
		if err != nil {
			return nil, err
		}
		g.bytes += len(name)
		out[name] = v
	}
	return out, nil
}

// array has minItems items: prefixItems' first, then items'.
func (g *minimal) array(m map[string]any, depth int) (any, error) {
	n, _ := count(m["minItems"])
	if n > maxMinimalItems {
		return nil, errUnbounded
	}
	prefix := asList(m["prefixItems"])
	out := make([]any, 0, n)
	for i := range n {
		sub := m["items"]
		if i < len(prefix) {
			sub = prefix[i]
		} else if l, ok := sub.([]any); ok { // draft-07's tuple form
			sub = nil
			if i < len(l) {
				sub = l[i]
			}
		}
		v, err := g.value(sub, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// formatValue is a value of each string format a server's schema
// commonly names ("" for others).
func formatValue(f string) string {
	switch f {
	case "date-time":
		return "1970-01-01T00:00:00Z"
	case "date":
		return "1970-01-01"
	case "time":
		return "00:00:00Z"
	case "duration":
		return "PT0S"
	case "email", "idn-email":
		return "a@example.com"
	case "hostname", "idn-hostname":
		return "example.com"
	case "ipv4":
		return "127.0.0.1"
	case "ipv6":
		return "::1"
	case "uri", "uri-reference", "iri", "iri-reference", "url":
		return "https://example.com"
	case "uuid":
		return "00000000-0000-0000-0000-000000000000"
	}
	return ""
}

// text is a string of the schema's format, padded to minLength.
func (g *minimal) text(m map[string]any) (any, error) {
	f, _ := m["format"].(string)
	s := formatValue(f)
	n, _ := count(m["minLength"])
	if n > maxMinimalBytes {
		return nil, errUnbounded
	}
	if pad := n - len([]rune(s)); pad > 0 {
		s += strings.Repeat("a", pad)
	}
	g.bytes += len(s)
	return s, nil
}

// number is 0 moved within the schema's bounds, a multiple of multipleOf.
func number(m map[string]any, integer bool) (any, error) {
	v := 0.0
	step := 1.0
	if !integer {
		step = 0.5
	}
	if lo, ok := float(m["minimum"]); ok && v < lo {
		v = lo
	}
	if lo, ok := float(m["exclusiveMinimum"]); ok && v <= lo {
		v = lo + step
	}
	if hi, ok := float(m["maximum"]); ok && v > hi {
		v = hi
	}
	if hi, ok := float(m["exclusiveMaximum"]); ok && v >= hi {
		v = hi - step
	}
	if integer {
		v = math.Ceil(v)
	}
	if mul, ok := float(m["multipleOf"]); ok && mul > 0 {
		v = math.Ceil(v/mul) * mul
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil, errors.New("its bounds leave no number")
	}
	if integer && math.Abs(v) < 1<<53 {
		return json.Number(strconv.FormatInt(int64(v), 10)), nil
	}
	return json.Number(strconv.FormatFloat(v, 'g', -1, 64)), nil
}

// resolve follows a local $ref: "#", or a JSON pointer within the schema.
func (g *minimal) resolve(ref string) (any, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("$ref %q is not within the schema: mcpc follows local $refs only", ref)
	}
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	cur := g.root
	if frag == "" {
		return cur, nil
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("$ref %q names an anchor: mcpc follows JSON pointers only", ref)
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur, ok = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			ok = err == nil && i >= 0 && i < len(c)
			if ok {
				cur = c[i]
			}
		default:
			ok = false
		}
		if !ok {
			return nil, fmt.Errorf("$ref %q points at nothing in the schema", ref)
		}
	}
	return cur, nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// count is a non-negative integer keyword's value.
func count(v any) (int, bool) {
	f, ok := float(v)
	if !ok || f < 0 {
		return 0, false
	}
	return int(min(f, math.MaxInt32)), true
}

func float(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}
