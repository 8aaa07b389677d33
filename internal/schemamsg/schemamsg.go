// Package schemamsg words what github.com/google/jsonschema-go's Validate
// found wrong with a value, naming the value by its path: for mcpc's
// checks of a tool's arguments and results, and of elicitation answers.
package schemamsg

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Mismatch words the error jsonschema-go's Validate returned for instance
// against schema, both plain JSON values (as encoding/json decodes into
// an any), naming the failing value as a noun ("argument", "field").
//
// jsonschema-go (v0.4.3, its newest release) offers no typed validation
// errors: every failure is a chain of fmt.Errorf values, one %w level per
// schema it descended into, each reading "validating " + that schema's
// JSON Pointer (or "root", or its $id) + ": " + the level below, down to
// the failed keyword's own message ("type: …", "required: …"). So:
//
//   - The chain itself is the structure: a level's own words are its
//     text less its inner error's text (exact, no pattern). Reading the
//     pointer after "validating " is the one place the library's wording
//     is relied on, since it says nowhere else which schema failed; a
//     level worded otherwise ends the walk, and the message names no
//     value rather than a wrong one.
//   - The pointers say where: walking them through the schema and the
//     instance together gives the failing value's path ("obj.k",
//     "list[2]"), $refs and allOf included.
//   - For the failures users meet most, the message is rebuilt from the
//     schema node and the value there, not from the library's words: a
//     JSON type the node does not allow (the library checks type first at
//     a node, so this is the failure it found), a value not in "enum", a
//     number out of bounds (the library words bounds as fractions, "3/1 is
//     less than 5.000000"), names "additionalProperties": false refuses,
//     required names missing, and an anyOf/oneOf of types none admits.
//     Each is a violation of the node the library named, which applies to
//     the value unconditionally.
//   - Any other keyword keeps the library's own message for it (the
//     innermost error, verbatim): the smallest fallback there is.
func Mismatch(err error, tree, instance any, noun string) string {
	locs, leaf, ok := schemaLevels(err)
	if !ok {
		return leaf.Error()
	}
	w := mismatchWalk{tree: tree, cands: []candidate{{v: instance}}}
	for i := 1; i < len(locs) && w.known(); i++ {
		w.step(locs[i-1], locs[i])
	}
	where := w.fixed
	if w.known() {
		node, _ := jsonPointer(tree, locs[len(locs)-1])
		for _, c := range w.cands {
			if msg := violation(tree, node, c, noun); msg != "" {
				return msg
			}
		}
		if len(w.cands) == 1 {
			where = w.cands[0].path
		}
	}
	if where != "" {
		return fmt.Sprintf("%s %q: %s", noun, where, leaf.Error())
	}
	return leaf.Error()
}

// schemaLevels unwinds a validation error into the schema locations it
// descended through, as JSON Pointers ("" for the root), and the failed
// keyword's error. ok is false, with leaf the whole error, when the chain
// does not read as one level per schema.
func schemaLevels(err error) (locs []string, leaf error, ok bool) {
	for e := err; ; {
		inner := errors.Unwrap(e)
		if inner == nil {
			return locs, e, len(locs) > 0
		}
		own, cut := strings.CutSuffix(e.Error(), ": "+inner.Error())
		loc, named := strings.CutPrefix(own, "validating ")
		if !cut || !named {
			return nil, err, false
		}
		if len(locs) == 0 || loc == "root" {
			loc = "" // the root, however it is named ("root", its $id)
		}
		locs = append(locs, loc)
		e = inner
	}
}

// candidate is a value the failure may be in, and its path.
type candidate struct {
	v    any
	path string
}

// mismatchWalk follows the schema levels through the instance. Going into
// "items" does not say which item failed, so every item is a candidate
// until the end, where the first that shows the violation is named.
type mismatchWalk struct {
	tree  any
	cands []candidate // nil once the walk cannot follow the instance
	fixed string      // the path all candidates share
}

func (w *mismatchWalk) known() bool { return w.cands != nil }

// step follows the validator from the schema at parent to the one at loc.
func (w *mismatchWalk) step(parent, loc string) {
	pm, tok, into := w.childOf(parent, loc)
	if !into {
		return
	}
	switch {
	case len(tok) == 2 && tok[0] == "properties":
		w.intoProperty(tok[1])
	case len(tok) == 1 && tok[0] == "items":
		w.intoItems(pm)
	case len(tok) == 2 && (tok[0] == "prefixItems" || tok[0] == "items"):
		w.intoItem(tok[1])
	case len(tok) == 1 && tok[0] == "additionalProperties" && pm["patternProperties"] == nil:
		w.intoAdditional(pm)
	case len(tok) == 2 && tok[0] == "allOf":
		// Applies to the same value, unconditionally.
	case len(w.cands) == 1 && (len(tok) == 1 && (tok[0] == "then" || tok[0] == "else") ||
		len(tok) == 2 && tok[0] == "dependentSchemas"):
		// Applies to the same value when a condition holds: it held for
		// the one value the validator was at.
	default:
		// patternProperties, contains, propertyNames, …: which values
		// they applied to is not known here.
		w.cands = nil
	}
}

// childOf reads the step from the schema at parent to the one at loc: the
// parent schema and loc's pointer tokens below it, and whether the step
// goes into the instance. It does not when loc is the same value against
// a schema referred to, nor when where loc sits is not known (then the
// walk cannot follow the instance any more).
func (w *mismatchWalk) childOf(parent, loc string) (pm map[string]any, tok []string, into bool) {
	pnode, ok := jsonPointer(w.tree, parent)
	if _, isPtr := jsonPointer(w.tree, loc); !ok || !isPtr {
		w.cands = nil // a schema named by its $id: where it sits is not known
		return nil, nil, false
	}
	pm, _ = pnode.(map[string]any)
	if ref, ok := pm["$ref"].(string); ok && strings.TrimPrefix(ref, "#") == loc {
		return nil, nil, false // the same value, against the schema referred to
	}
	rest, child := strings.CutPrefix(loc, parent+"/")
	if !child {
		if _, dyn := pm["$dynamicRef"]; !dyn && pm["$ref"] == nil {
			w.cands = nil
		}
		// else a reference written otherwise ("#/%24defs/x"): the same value
		return nil, nil, false
	}
	tok = strings.Split(rest, "/")
	for i := range tok {
		tok[i] = unescapePointer(tok[i])
	}
	return pm, tok, true
}

// intoProperty goes to each candidate's member name.
func (w *mismatchWalk) intoProperty(name string) {
	w.each(func(c candidate, out []candidate) []candidate {
		if m, ok := c.v.(map[string]any); ok {
			if v, ok := m[name]; ok {
				out = append(out, candidate{v, joinPath(c.path, name)})
			}
		}
		return out
	})
}

// intoItems goes to every item of each candidate that the "items" of pm
// applies to.
func (w *mismatchWalk) intoItems(pm map[string]any) {
	start := 0
	if _, obj := pm["items"].(map[string]any); obj {
		if pre, ok := pm["prefixItems"].([]any); ok {
			start = len(pre) // 2020-12: items follow prefixItems
		}
	}
	w.each(func(c candidate, out []candidate) []candidate {
		a, _ := c.v.([]any)
		for i := start; i < len(a); i++ {
			out = append(out, candidate{a[i], c.path + "[" + strconv.Itoa(i) + "]"})
		}
		return out
	})
}

// intoItem goes to each candidate's item at index (a tuple's).
func (w *mismatchWalk) intoItem(index string) {
	n, err := strconv.Atoi(index)
	if err != nil {
		w.cands = nil
		return
	}
	w.each(func(c candidate, out []candidate) []candidate {
		if a, ok := c.v.([]any); ok && n < len(a) {
			out = append(out, candidate{a[n], c.path + "[" + index + "]"})
		}
		return out
	})
}

// intoAdditional goes to the values of the names the "properties" of pm
// does not list.
func (w *mismatchWalk) intoAdditional(pm map[string]any) {
	props, _ := pm["properties"].(map[string]any)
	w.each(func(c candidate, out []candidate) []candidate {
		m, _ := c.v.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if _, listed := props[k]; !listed {
				out = append(out, candidate{m[k], joinPath(c.path, k)})
			}
		}
		return out
	})
}

// each replaces every candidate by what f makes of it, and keeps the path
// they share.
func (w *mismatchWalk) each(f func(candidate, []candidate) []candidate) {
	var out []candidate
	for _, c := range w.cands {
		out = f(c, out)
	}
	w.cands = out
	if len(out) == 1 {
		w.fixed = out[0].path
	}
	if len(out) == 0 {
		w.cands = nil
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// violation words how c breaks one of the keywords users meet most at the
// schema node, or is "" when it breaks none of them. Every one found is a
// real violation of the node, which applies to c unconditionally.
func violation(tree, node any, c candidate, noun string) string {
	m, _ := node.(map[string]any)
	wd := wording{noun: noun, path: c.path}
	got := jsonTypeOf(c.v)
	if got == "" {
		return "" // not plain JSON: only the library's words can say
	}
	if msg := valueViolation(m, c.v, got, wd); msg != "" {
		return msg
	}
	if obj, isObj := c.v.(map[string]any); isObj {
		if msg := memberViolation(m, obj, wd); msg != "" {
			return msg
		}
	}
	return unionViolation(tree, m, got, wd.value, c.v)
}

// wording words a violation at path, whose names are noun's.
type wording struct{ noun, path string }

// value words a violation of the value at the path.
func (wd wording) value(format string, args ...any) string {
	msg := fmt.Sprintf(format, args...)
	if wd.path == "" {
		return msg
	}
	return fmt.Sprintf("%s %q: %s", wd.noun, wd.path, msg)
}

// names words a violation by the names in list of the object at the path.
func (wd wording) names(what string, list []string) string {
	msg := what + " " + wd.noun + " " + quoteList(list, ", ")
	if len(list) > 1 {
		msg = what + " " + wd.noun + "s " + quoteList(list, ", ")
	}
	if wd.path != "" {
		msg += " in " + strconv.Quote(wd.path)
	}
	return msg
}

// valueViolation words how v, of JSON type got, breaks the node m's
// "type", "enum" or numeric bounds, or is "".
func valueViolation(m map[string]any, v any, got string, wd wording) string {
	if want := schemaTypes(m); want != nil && !typeAllowed(got, want) {
		return wd.value("%s has type %q, want %s", shownValue(v), got, quoteList(want, " or "))
	}
	if enum, ok := m["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return reflect.DeepEqual(e, v) }) {
		choices := make([]string, len(enum))
		for i, e := range enum {
			b, _ := json.Marshal(e)
			choices[i] = string(b)
		}
		return wd.value("%s is not one of %s", shownValue(v), strings.Join(choices, ", "))
	}
	n, ok := v.(float64)
	if !ok {
		return ""
	}
	// The validator words bounds as fractions ("3/1 is less than 5.000000").
	if lo, ok := m["minimum"].(float64); ok && n < lo {
		return wd.value("%v is less than the minimum, %v", n, lo)
	}
	if hi, ok := m["maximum"].(float64); ok && n > hi {
		return wd.value("%v is more than the maximum, %v", n, hi)
	}
	if lo, ok := m["exclusiveMinimum"].(float64); ok && n <= lo {
		return wd.value("%v is not more than the exclusive minimum, %v", n, lo)
	}
	if hi, ok := m["exclusiveMaximum"].(float64); ok && n >= hi {
		return wd.value("%v is not less than the exclusive maximum, %v", n, hi)
	}
	return ""
}

// memberViolation words the names obj has that the node m does not allow
// ("additionalProperties": false, when no pattern makes a name allowed),
// or else the required ones it lacks; or is "".
func memberViolation(m map[string]any, obj map[string]any, wd wording) string {
	if ap, ok := m["additionalProperties"].(bool); ok && !ap && m["patternProperties"] == nil {
		props, _ := m["properties"].(map[string]any)
		var extra []string
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if _, ok := props[k]; !ok {
				extra = append(extra, k)
			}
		}
		if len(extra) > 0 {
			return wd.names("unexpected", extra)
		}
	}
	req, _ := m["required"].([]any)
	var missing []string
	for _, r := range req {
		if name, ok := r.(string); ok {
			if _, has := obj[name]; !has {
				missing = append(missing, name)
			}
		}
	}
	if len(missing) > 0 {
		return wd.names("missing required", missing)
	}
	return ""
}

// unionViolation words a value that none of the branches of the node's
// anyOf or oneOf admits by type alone ("anyOf": [{"type": "string"},
// {"type": "null"}] is how an optional value is often written) or by
// "const" alone (a list of titled choices, as elicitation forms write
// them), or "".
func unionViolation(tree any, m map[string]any, got string, value func(string, ...any) string, v any) string {
	for _, key := range []string{"anyOf", "oneOf"} {
		branches, ok := m[key].([]any)
		if !ok || len(branches) == 0 {
			continue
		}
		if choices, ok := constChoices(branches, v); ok {
			return value("%s is not one of %s", shownValue(v), strings.Join(choices, ", "))
		}
		var want []string
		for _, b := range branches {
			bm, _ := b.(map[string]any)
			if ref, ok := bm["$ref"].(string); ok && len(bm) == 1 && strings.HasPrefix(ref, "#") {
				target, _ := jsonPointer(tree, ref[1:])
				bm, _ = target.(map[string]any)
			}
			t := schemaTypes(bm)
			if t == nil || typeAllowed(got, t) {
				want = nil // a branch without a type, or one that admits it
				break
			}
			for _, x := range t {
				if !slices.Contains(want, x) {
					want = append(want, x)
				}
			}
		}
		if want != nil {
			return value("%s has type %q, want %s", shownValue(v), got, quoteList(want, " or "))
		}
	}
	return ""
}

// constChoices lists the values of branches that each admit one value
// ("const", with at most a title and a description beside it), as JSON;
// ok is false unless every branch is one and none of them is v.
func constChoices(branches []any, v any) (choices []string, ok bool) {
	for _, b := range branches {
		bm, _ := b.(map[string]any)
		c, has := bm["const"]
		for k := range bm {
			if k != "const" && k != "title" && k != "description" {
				has = false
			}
		}
		if !has || reflect.DeepEqual(c, v) {
			return nil, false
		}
		j, _ := json.Marshal(c)
		choices = append(choices, string(j))
	}
	return choices, true
}

// schemaTypes reads a node's "type", a name or a list of them; nil when
// it has none.
func schemaTypes(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// typeAllowed reports whether a value of JSON type got is one of want: a
// number type admits integers.
func typeAllowed(got string, want []string) bool {
	return slices.Contains(want, got) || got == "integer" && slices.Contains(want, "number")
}

// quoteList quotes each word, joined by sep, the last pair by " or " when
// sep is " or ": "a", "a" or "b", "a", "b" or "c".
func quoteList(words []string, sep string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	if sep != " or " || len(q) < 2 {
		return strings.Join(q, sep)
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// jsonTypeOf is the JSON Schema type of a plain JSON value, as the
// validator sees it (a number without a fraction is an integer), or "".
func jsonTypeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if _, frac := math.Modf(x); frac == 0 {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// shownValue prints a value for a message: strings and numbers as they
// are (as the validator prints them), null as null, an array or object as
// JSON, shortened.
func shownValue(v any) string {
	switch v.(type) {
	case []any, map[string]any:
		b, _ := json.Marshal(v)
		s := []rune(string(b))
		if len(s) <= 60 {
			return string(s)
		}
		return string(s[:57]) + "..."
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// jsonPointer finds the value at an RFC 6901 pointer ("" is the whole
// document) in plain JSON.
func jsonPointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescapePointer(tok)
		switch x := doc.(type) {
		case map[string]any:
			v, ok := x[tok]
			if !ok {
				return nil, false
			}
			doc = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			doc = x[i]
		default:
			return nil, false
		}
	}
	return doc, true
}

var pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

func unescapePointer(tok string) string { return pointerUnescaper.Replace(tok) }
