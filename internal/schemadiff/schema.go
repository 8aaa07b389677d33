package schemadiff

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/schemamsg"
)

// node is a schema inside its document: the value, the document's root
// (what a local $ref points into) and the JSON pointer it was reached at,
// which names it in the cycle check.
type node struct {
	v    any
	root any
	at   string
}

// maxRefChain bounds a $ref that points at a $ref that points …
const maxRefChain = 64

// deref follows the node's local $ref (#, #/$defs/x, #/definitions/x, any
// JSON pointer) until it reaches a schema without one. The keywords beside
// a $ref apply too (2020-12), so they are laid over what it points to. A
// $ref that cannot be followed (another document, a pointer to nothing)
// is left in place: two such schemas compare by the $ref's text.
func deref(n node) node {
	for range maxRefChain {
		m, ok := n.v.(map[string]any)
		if !ok {
			return n
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return n
		}
		target, ok := resolve(n.root, ref)
		if !ok {
			return n
		}
		tm, isMap := target.(map[string]any)
		if len(m) > 1 && isMap {
			merged := maps.Clone(tm)
			for k, v := range m {
				if k != "$ref" {
					merged[k] = v
				}
			}
			target = merged
		}
		n = node{v: target, root: n.root, at: ref}
	}
	return n
}

// resolve finds a local $ref's target in root.
func resolve(root any, ref string) (any, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	if frag == "" {
		return root, true
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, false // an anchor name: not followed
	}
	cur := root
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// view is what the comparison reads of a schema, with allOf, anyOf and
// oneOf folded in: the types it allows (nil: any), the values it is
// limited to (nil: none), its object and array structure.
type view struct {
	types       map[string]bool
	enum        []any
	props       map[string]node
	required    map[string]bool
	closed      bool // additionalProperties: false
	items       *node
	tuple       []node
	ref         string // a $ref that was not followed
	title, desc string
}

// at is a child's location, for the cycle check.
func (n node) child(v any, parts ...string) node {
	return node{v: v, root: n.root, at: n.at + "/" + strings.Join(parts, "/")}
}

// viewOf reads a schema. folding holds the locations whose allOf, anyOf
// and oneOf are being folded: a branch that refers back to one of them
// adds nothing more (it allows what the schema allows). Each read and
// what its folding copies is charged to b; once b is spent the views are
// empty, and the caller, seeing b spent, drops them.
func viewOf(n node, folding map[string]bool, b *schemamsg.Budget) view {
	var w view
	if !b.Charge(1) {
		return w
	}
	n = deref(n)
	if folding[n.at] || len(folding) > maxDepth {
		return w
	}
	m, ok := n.v.(map[string]any)
	if !ok {
		if v, ok := n.v.(bool); ok && !v {
			w.types = map[string]bool{} // false: nothing is valid
		}
		return w // true, absent or not a schema: anything
	}
	w.title, _ = m["title"].(string)
	w.desc, _ = m["description"].(string)
	if r, ok := m["$ref"].(string); ok {
		w.ref = r
	}
	w.readValues(m)
	w.readObject(n, m)
	w.readArray(n, m)
	folding[n.at] = true
	defer delete(folding, n.at)
	if all, ok := m["allOf"].([]any); ok {
		for i, e := range all {
			o := viewOf(n.child(e, "allOf", strconv.Itoa(i)), folding, b)
			b.Charge(len(o.props) + len(o.required))
			w.meet(o)
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if l, ok := m[k].([]any); ok && len(l) > 0 {
			w.meet(unionOf(n, k, l, folding, b))
		}
	}
	return w
}

// readValues reads the types and the values m allows: "type", "enum" and
// "const".
func (w *view) readValues(m map[string]any) {
	switch t := m["type"].(type) {
	case string:
		w.types = map[string]bool{t: true}
	case []any:
		w.types = map[string]bool{}
		for _, e := range t {
			if s, ok := e.(string); ok {
				w.types[s] = true
			}
		}
	}
	if e, ok := m["enum"].([]any); ok {
		w.enum = e
	} else if c, ok := m["const"]; ok {
		w.enum = []any{c}
	}
}

// readObject reads the object structure of m, the schema at n.
func (w *view) readObject(n node, m map[string]any) {
	if p, ok := m["properties"].(map[string]any); ok {
		w.props = map[string]node{}
		for k, v := range p {
			w.props[k] = n.child(v, "properties", k)
		}
	}
	if r, ok := m["required"].([]any); ok {
		w.required = map[string]bool{}
		for _, e := range r {
			if s, ok := e.(string); ok {
				w.required[s] = true
			}
		}
	}
	w.closed = m["additionalProperties"] == false
}

// readArray reads the array structure of m, the schema at n: its items,
// or its tuple (draft-07 or 2020-12).
func (w *view) readArray(n node, m map[string]any) {
	switch it := m["items"].(type) {
	case []any: // draft-07 tuple
		for i, e := range it {
			w.tuple = append(w.tuple, n.child(e, "items", strconv.Itoa(i)))
		}
	case nil:
	default:
		c := n.child(it, "items")
		w.items = &c
	}
	if pi, ok := m["prefixItems"].([]any); ok { // 2020-12 tuple
		for i, e := range pi {
			w.tuple = append(w.tuple, n.child(e, "prefixItems", strconv.Itoa(i)))
		}
	}
}

// unionOf is the view of the branches l under keyword k (anyOf or oneOf)
// of the schema at n, joined: what any of them allows, untitled.
func unionOf(n node, k string, l []any, folding map[string]bool, b *schemamsg.Budget) view {
	var u view
	for i, e := range l {
		o := viewOf(n.child(e, k, strconv.Itoa(i)), folding, b)
		// join copies the enums and the property names.
		b.Charge(len(o.enum) + len(o.props) + len(o.required))
		if i == 0 {
			u = o
		} else {
			u.join(o)
		}
	}
	u.title, u.desc = "", ""
	return u
}

// meet folds in a schema the value must also match (allOf): fewer types,
// more properties and required ones.
func (w *view) meet(o view) {
	switch {
	case w.types == nil:
		w.types = o.types
	case o.types != nil:
		for t := range w.types {
			if !o.types[t] && !(t == "number" && o.types["integer"]) {
				delete(w.types, t)
			}
		}
		if w.types["number"] && o.types["integer"] && !o.types["number"] {
			delete(w.types, "number")
			w.types["integer"] = true
		}
	}
	if w.enum == nil {
		w.enum = o.enum
	}
	w.props = mergeProps(w.props, o.props)
	if o.required != nil {
		if w.required == nil {
			w.required = map[string]bool{}
		}
		maps.Copy(w.required, o.required)
	}
	w.closed = w.closed || o.closed
	if w.items == nil {
		w.items = o.items
	}
	if w.tuple == nil {
		w.tuple = o.tuple
	}
	if w.title == "" {
		w.title = o.title
	}
	if w.desc == "" {
		w.desc = o.desc
	}
}

// join folds in an alternative (anyOf, oneOf): the types of either, the
// properties of either, required only what both require.
func (w *view) join(o view) {
	if w.types != nil && o.types != nil {
		maps.Copy(w.types, o.types)
	} else {
		w.types = nil
	}
	if w.enum != nil && o.enum != nil {
		w.enum = append(slices.Clip(w.enum), o.enum...)
	} else {
		w.enum = nil
	}
	w.props = mergeProps(w.props, o.props)
	switch {
	case w.required == nil || o.required == nil:
		w.required = nil
	default:
		for k := range w.required {
			if !o.required[k] {
				delete(w.required, k)
			}
		}
	}
	w.closed = w.closed && o.closed
	if w.items == nil {
		w.items = o.items
	}
	if w.tuple == nil {
		w.tuple = o.tuple
	}
}

func mergeProps(a, b map[string]node) map[string]node {
	if a == nil {
		return b
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			a[k] = v
		}
	}
	return a
}

// schema compares one schema location: output says it is a tool's output
// (the server produces the value, so narrowing is safe and widening is
// not), otherwise an input (the client produces it: the reverse).
func (d *differ) schema(o, n node, path string, output bool, depth int) {
	// A step, and the path written out (a long one is its own work).
	if !d.budget.Charge(1 + len(path)/64) {
		return
	}
	if depth > maxDepth {
		d.tooDeep = true
		return
	}
	o, n = deref(o), deref(n)
	key := [2]string{o.at, n.at}
	if d.stack[key] {
		return // a cycle: this pair is being compared further up
	}
	d.stack[key] = true
	defer delete(d.stack, key)

	ov, nv := viewOf(o, map[string]bool{}, d.budget), viewOf(n, map[string]bool{}, d.budget)
	if d.budget.Left() < 0 || d.budget.Err() != nil {
		return
	}
	less, more := severities(output)
	if ov.ref != nv.ref && (ov.ref != "" || nv.ref != "") {
		d.add(Breaking, path, "ref-changed", ov.ref, nv.ref)
	}
	if path != "arguments" && path != "output" {
		d.texts(path, "title", ov.title, nv.title)
		d.texts(path, "description", ov.desc, nv.desc)
	}
	d.types(ov.types, nv.types, path, less, more)
	d.enums(ov.enum, nv.enum, path, less, more)
	d.keywords(o.v, n.v, path, less, more)

	d.props(ov, nv, path, output, depth)
	switch {
	case !ov.closed && nv.closed:
		d.add(less, path, "closed", true, false)
	case ov.closed && !nv.closed:
		d.add(Compatible, path, "opened", false, true)
	}
	if ov.items != nil || nv.items != nil {
		d.schema(itemOf(o, ov.items), itemOf(n, nv.items), path+"[]", output, depth+1)
	}
	for i := range max(len(ov.tuple), len(nv.tuple)) {
		var oi, ni *node
		if i < len(ov.tuple) {
			oi = &ov.tuple[i]
		}
		if i < len(nv.tuple) {
			ni = &nv.tuple[i]
		}
		d.schema(itemOf(o, oi), itemOf(n, ni), path+"["+strconv.Itoa(i)+"]", output, depth+1)
	}
}

// props compares the properties of two object schemas at path: removed,
// added, now required or optional, and each kept one's schema.
func (d *differ) props(ov, nv view, path string, output bool, depth int) {
	less, more := severities(output)
	for _, k := range sortedUnion(keysOf(ov), keysOf(nv)) {
		op, inOld := propOf(ov, k)
		np, inNew := propOf(nv, k)
		p := path + "." + k
		oreq, nreq := ov.required[k], nv.required[k]
		switch {
		case !inNew:
			d.add(Breaking, p, "removed", nil, nil)
			continue
		case !inOld && nreq && !output:
			d.add(Breaking, p, "added-required", nil, nil)
			continue
		case !inOld:
			d.add(Compatible, p, "added", nil, nil)
			continue
		case !oreq && nreq:
			d.add(less, p, "now-required", false, true)
		case oreq && !nreq:
			d.add(more, p, "now-optional", true, false)
		}
		d.schema(op, np, p, output, depth+1)
	}
}

// severities are those of a change that accepts less and of one that
// accepts more: in an input the first is breaking; in an output (what the
// server may produce) the second.
func severities(output bool) (less, more string) {
	if output {
		return Compatible, Breaking
	}
	return Breaking, Compatible
}

// keysOf is the view's property names and its required names (a required
// name need not be described under properties).
func keysOf(w view) map[string]bool {
	k := map[string]bool{}
	for p := range w.props {
		k[p] = true
	}
	for r := range w.required {
		k[r] = true
	}
	return k
}

// propOf is property k of w, and whether w names it at all.
func propOf(w view, k string) (node, bool) {
	if p, ok := w.props[k]; ok {
		return p, true
	}
	return node{}, w.required[k]
}

// itemOf is an array's item schema, anything when there is none.
func itemOf(parent node, it *node) node {
	if it == nil {
		return node{root: parent.root, at: parent.at + "/items"}
	}
	return *it
}

// types compares type sets; "integer" is a part of "number".
func (d *differ) types(o, n map[string]bool, path, less, more string) {
	sub := func(a, b map[string]bool) bool { // a ⊆ b
		if b == nil {
			return true
		}
		if a == nil {
			return false
		}
		for t := range a {
			if !b[t] && !(t == "integer" && b["number"]) {
				return false
			}
		}
		return true
	}
	narrower, wider := sub(n, o), sub(o, n)
	if narrower && wider {
		return
	}
	ol, nl := typeList(o), typeList(n)
	switch {
	case narrower:
		d.add(less, path, "type-narrowed", ol, nl)
	case wider:
		d.add(more, path, "type-widened", ol, nl)
	default:
		d.add(Breaking, path, "type-changed", ol, nl)
	}
}

// typeList is a type set as a sorted list, nil for any.
func typeList(s map[string]bool) []string {
	if s == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(s))
}

// enums compares the values a schema is limited to, as sets of JSON texts.
func (d *differ) enums(o, n []any, path, less, more string) {
	switch {
	case o == nil && n == nil:
		return
	case o == nil:
		d.add(less, path, "enum-added", nil, n)
		return
	case n == nil:
		d.add(more, path, "enum-removed", o, nil)
		return
	}
	// As sets of JSON texts, each written once: comparing the lists pair
	// by pair took minutes for 30,000 values. A location reached many
	// times through $refs writes them each time: charged.
	d.budget.Charge(len(o) + len(n))
	texts := func(l []any) (map[string]bool, []string) {
		set, list := make(map[string]bool, len(l)), make([]string, len(l))
		for i, v := range l {
			list[i] = jsonText(v)
			set[list[i]] = true
		}
		return set, list
	}
	oset, olist := texts(o)
	nset, nlist := texts(n)
	for i, v := range o {
		if !nset[olist[i]] {
			d.add(less, path, "enum-value-removed", v, nil)
		}
	}
	for i, v := range n {
		if !oset[nlist[i]] {
			d.add(more, path, "enum-value-added", nil, v)
		}
	}
}

// structural are the keywords the walk compares itself.
var structural = map[string]bool{
	"type": true, "enum": true, "const": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "prefixItems": true, "allOf": true, "anyOf": true,
	"oneOf": true, "$ref": true, "$defs": true, "definitions": true, "title": true, "description": true,
}

// annotations are keywords that describe a value without limiting it.
var annotations = map[string]bool{
	"default": true, "examples": true, "$comment": true, "deprecated": true, "readOnly": true,
	"writeOnly": true, "$schema": true, "$id": true, "$anchor": true, "contentMediaType": true,
}

// lowerBounds and upperBounds limit a value from below and above: raising
// a lower bound or lowering an upper one accepts less.
var (
	lowerBounds = map[string]bool{"minimum": true, "exclusiveMinimum": true, "minLength": true, "minItems": true, "minProperties": true, "minContains": true}
	upperBounds = map[string]bool{"maximum": true, "exclusiveMaximum": true, "maxLength": true, "maxItems": true, "maxProperties": true, "maxContains": true}
)

// keywords compares every other keyword of one location, so that no
// change goes unreported (--strict counts on it): a bound by its
// direction; an annotation or an x- extension as compatible; any other
// (pattern, format, multipleOf, …) as a limit, which accepts less when it
// is added or changed and more when it is removed.
func (d *differ) keywords(o, n any, path, less, more string) {
	om, _ := o.(map[string]any)
	nm, _ := n.(map[string]any)
	for _, k := range sortedUnion(om, nm) {
		if structural[k] {
			continue
		}
		ov, inOld := om[k]
		nv, inNew := nm[k]
		if inOld && inNew {
			ot, nt := jsonText(ov), jsonText(nv)
			// A keyword may hold a whole schema ("not", "if"), written
			// out again at each visit of its location.
			d.budget.Charge(len(ot) + len(nt))
			if ot == nt {
				continue
			}
		}
		kind := less
		switch {
		case annotations[k] || strings.HasPrefix(k, "x-"):
			kind = Compatible
		case !inNew:
			kind = more
		case inOld && (lowerBounds[k] || upperBounds[k]):
			of, oerr := strconv.ParseFloat(jsonText(ov), 64)
			nf, nerr := strconv.ParseFloat(jsonText(nv), 64)
			if oerr == nil && nerr == nil && (lowerBounds[k] && nf < of || upperBounds[k] && nf > of) {
				kind = more
			}
		}
		var ow, nw any
		if inOld {
			ow = map[string]any{k: ov}
		}
		if inNew {
			nw = map[string]any{k: nv}
		}
		d.add(kind, path, "keyword", ow, nw)
	}
}
