package schemamsg

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Loop says how a schema could make jsonschema-go's Validate recurse
// forever, or is "" when it cannot. The validator follows "$ref",
// "allOf", "anyOf", "not" and the like on the same value, so a chain of
// them that returns to a schema it started from, such as
// {"anyOf": [{"type": "string"}, {"$ref": "#"}]}, never ends: the stack
// overflows, which Go cannot recover from. A chain that passes through
// "properties", "items" or another keyword that descends into the value
// ends with the value.
//
// root is the schema as jsonschema-go decoded it (its decoder matches
// keywords regardless of case, "$Ref" as "$ref": only its own reading
// says which references it follows), after Resolve accepted it. The
// references are resolved here as Resolve resolves them ($id bases,
// $anchor, JSON Pointers); one this cannot follow counts as a loop, since
// whether it is one is not known.
func Loop(root *jsonschema.Schema) string {
	_, msg := newLoopGraph(root)
	return msg
}

// newLoopGraph builds the graph of root's schemas and its references, and
// says how it loops ("" when it does not).
func newLoopGraph(root *jsonschema.Schema) (*loopGraph, string) {
	g := &loopGraph{nodes: map[*jsonschema.Schema]*loopNode{}, uris: map[string]*jsonschema.Schema{}, anchors: map[*jsonschema.Schema]map[string]loopAnchor{}}
	g.draft7 = root.Schema == "http://json-schema.org/draft-07/schema#" || root.Schema == "https://json-schema.org/draft-07/schema#"
	base := &url.URL{}
	g.uris[base.String()] = root // the root, also when it has an $id
	g.walk(root, "", root, base)
	if msg := g.resolveRefs(); msg != "" {
		return g, msg
	}
	return g, g.cycle(root)
}

// loopGraph is the schemas of one document and how the validator moves
// between them.
type loopGraph struct {
	draft7  bool
	nodes   map[*jsonschema.Schema]*loopNode
	order   []*jsonschema.Schema                         // in walk order, for a stable answer
	uris    map[string]*jsonschema.Schema                // base URI → the schema it names
	anchors map[*jsonschema.Schema]map[string]loopAnchor // base schema → anchor name → target
}

type loopAnchor struct {
	s       *jsonschema.Schema
	dynamic bool
}

// loopNode is one schema: where it is, and where the validator goes from
// it on the same value (in place) and into a part of the value (down).
type loopNode struct {
	ptr     string             // its JSON Pointer from the root
	base    *jsonschema.Schema // the schema relative references resolve against
	baseURI *url.URL           // that schema's URI
	inPlace []loopEdge
	down    []*jsonschema.Schema
}

// loopEdge is a move on the same value: into a subschema (via "") or
// through a reference (via "$ref" or "$dynamicRef").
type loopEdge struct {
	to  *jsonschema.Schema
	via string
}

// walk records s at ptr and every schema below it, with base URIs and
// anchors as jsonschema-go's resolveURIs computes them.
func (g *loopGraph) walk(s *jsonschema.Schema, ptr string, base *jsonschema.Schema, baseURI *url.URL) {
	if s == nil || g.nodes[s] != nil {
		return
	}
	// Draft 7 ignores every sibling of "$ref", "$id" included.
	if s.ID != "" && !(g.draft7 && s.Ref != "") {
		if u, err := url.Parse(s.ID); err == nil {
			if g.draft7 && u.Fragment != "" {
				g.anchor(base, strings.TrimPrefix(s.ID, "#"), s, false)
			} else {
				baseURI = baseURI.ResolveReference(u)
				g.uris[baseURI.String()] = s
				base = s
			}
		}
	}
	if !g.draft7 {
		g.anchor(base, s.Anchor, s, false)
		g.anchor(base, s.DynamicAnchor, s, true)
	}
	n := &loopNode{ptr: ptr, base: base, baseURI: baseURI}
	g.nodes[s] = n
	g.order = append(g.order, s)
	child := func(sub *jsonschema.Schema, p string, inPlace, down bool) {
		if sub == nil {
			return
		}
		g.walk(sub, p, base, baseURI)
		switch {
		case inPlace:
			n.inPlace = append(n.inPlace, loopEdge{to: sub})
		case down:
			n.down = append(n.down, sub)
		}
	}
	list := func(key string, subs []*jsonschema.Schema, inPlace, down bool) {
		for i, sub := range subs {
			child(sub, ptr+"/"+key+"/"+strconv.Itoa(i), inPlace, down)
		}
	}
	byName := func(key string, subs map[string]*jsonschema.Schema, inPlace, down bool) {
		for _, name := range slices.Sorted(maps.Keys(subs)) {
			child(subs[name], ptr+"/"+key+"/"+escapePointer(name), inPlace, down)
		}
	}
	// On the same value, as validate applies them.
	child(s.Not, ptr+"/not", true, false)
	child(s.If, ptr+"/if", true, false)
	child(s.Then, ptr+"/then", true, false)
	child(s.Else, ptr+"/else", true, false)
	list("allOf", s.AllOf, true, false)
	list("anyOf", s.AnyOf, true, false)
	list("oneOf", s.OneOf, true, false)
	byName("dependentSchemas", s.DependentSchemas, true, false)
	byName("dependencies", s.DependencySchemas, true, false)
	// On a part of the value.
	child(s.Items, ptr+"/items", false, true)
	list("items", s.ItemsArray, false, true)
	list("prefixItems", s.PrefixItems, false, true)
	child(s.AdditionalItems, ptr+"/additionalItems", false, true)
	child(s.Contains, ptr+"/contains", false, true)
	child(s.UnevaluatedItems, ptr+"/unevaluatedItems", false, true)
	byName("properties", s.Properties, false, true)
	byName("patternProperties", s.PatternProperties, false, true)
	child(s.AdditionalProperties, ptr+"/additionalProperties", false, true)
	child(s.PropertyNames, ptr+"/propertyNames", false, true)
	child(s.UnevaluatedProperties, ptr+"/unevaluatedProperties", false, true)
	// Not applied: only referred to.
	byName("$defs", s.Defs, false, false)
	byName("definitions", s.Definitions, false, false)
	child(s.ContentSchema, ptr+"/contentSchema", false, false)
}

func (g *loopGraph) anchor(base *jsonschema.Schema, name string, s *jsonschema.Schema, dynamic bool) {
	if name == "" {
		return
	}
	if g.anchors[base] == nil {
		g.anchors[base] = map[string]loopAnchor{}
	}
	g.anchors[base][name] = loopAnchor{s, dynamic}
}

// resolveRefs adds an edge for every "$ref" and "$dynamicRef", or says
// which it cannot follow.
func (g *loopGraph) resolveRefs() string {
	for _, s := range g.order {
		n := g.nodes[s]
		for _, r := range []struct{ key, ref string }{{"$ref", s.Ref}, {"$dynamicRef", s.DynamicRef}} {
			if r.ref == "" {
				continue
			}
			targets, ok := g.resolve(n, r.ref, r.key == "$dynamicRef")
			if !ok {
				return fmt.Sprintf("cannot tell whether the %s at %s comes back to itself", r.key, fragment(n.ptr))
			}
			for _, t := range targets {
				n.inPlace = append(n.inPlace, loopEdge{to: t, via: r.key})
			}
		}
	}
	return ""
}

// resolve finds the schemas ref may lead to, as jsonschema-go's resolveRef
// does. A "$dynamicRef" to a dynamic anchor is resolved while validating,
// from the schemas the validator went through: every schema with a
// dynamic anchor of that name may be the one.
func (g *loopGraph) resolve(n *loopNode, ref string, dynamic bool) ([]*jsonschema.Schema, bool) {
	r, err := url.Parse(ref)
	if err != nil {
		return nil, false
	}
	u := *n.baseURI.ResolveReference(r)
	frag := u.Fragment
	u.Fragment, u.RawFragment = "", ""
	doc := g.uris[u.String()]
	if doc == nil {
		return nil, false // remote: Resolve would have refused it
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		a, ok := g.anchors[doc][frag]
		if !ok {
			return nil, false
		}
		if !dynamic || !a.dynamic {
			return []*jsonschema.Schema{a.s}, true
		}
		var all []*jsonschema.Schema
		for _, s := range g.order {
			if b, ok := g.anchors[s][frag]; ok && b.dynamic {
				all = append(all, b.s)
			}
		}
		return all, true
	}
	s := deref(doc, frag)
	return []*jsonschema.Schema{s}, s != nil && g.nodes[s] != nil
}

// deref follows the JSON Pointer ptr from s through the keywords that
// hold schemas, as jsonschema-go's dereferenceJSONPointer does, or is nil.
func deref(s *jsonschema.Schema, ptr string) *jsonschema.Schema {
	if ptr == "" {
		return s
	}
	toks := strings.Split(ptr[1:], "/")
	for i := 0; i < len(toks); i++ {
		if s == nil {
			return nil
		}
		key := unescapePointer(toks[i])
		one := map[string]*jsonschema.Schema{
			"not": s.Not, "if": s.If, "then": s.Then, "else": s.Else, "items": s.Items,
			"additionalItems": s.AdditionalItems, "contains": s.Contains, "unevaluatedItems": s.UnevaluatedItems,
			"additionalProperties": s.AdditionalProperties, "propertyNames": s.PropertyNames,
			"unevaluatedProperties": s.UnevaluatedProperties, "contentSchema": s.ContentSchema,
		}
		lists := map[string][]*jsonschema.Schema{"allOf": s.AllOf, "anyOf": s.AnyOf, "oneOf": s.OneOf, "prefixItems": s.PrefixItems}
		if s.Items == nil {
			lists["items"] = s.ItemsArray
		}
		named := map[string]map[string]*jsonschema.Schema{
			"$defs": s.Defs, "definitions": s.Definitions, "properties": s.Properties,
			"patternProperties": s.PatternProperties, "dependentSchemas": s.DependentSchemas, "dependencies": s.DependencySchemas,
		}
		if sub, ok := one[key]; ok && (key != "items" || s.Items != nil) {
			s = sub
			continue
		}
		if i+1 == len(toks) {
			return nil // a list or a map, not a schema
		}
		next := unescapePointer(toks[i+1])
		i++
		if l, ok := lists[key]; ok {
			j, err := strconv.Atoi(next)
			if err != nil || j < 0 || j >= len(l) || strconv.Itoa(j) != next {
				return nil
			}
			s = l[j]
		} else if m, ok := named[key]; ok {
			s = m[next]
		} else {
			return nil
		}
	}
	return s
}

// cycle finds a chain of in-place moves that comes back to where it
// started, among the schemas the root can reach.
func (g *loopGraph) cycle(root *jsonschema.Schema) string {
	reach := map[*jsonschema.Schema]bool{root: true}
	for queue := []*jsonschema.Schema{root}; len(queue) > 0; queue = queue[1:] {
		n := g.nodes[queue[0]]
		next := slices.Clone(n.down)
		for _, e := range n.inPlace {
			next = append(next, e.to)
		}
		for _, s := range next {
			if !reach[s] {
				reach[s] = true
				queue = append(queue, s)
			}
		}
	}
	// Depth first with an explicit stack: a hostile schema may chain more
	// references than a recursion should go deep.
	const (
		unseen = iota
		onPath
		done
	)
	state := map[*jsonschema.Schema]int{}
	type frame struct {
		s    *jsonschema.Schema
		next int      // the next in-place edge to try
		via  loopEdge // the edge that led here
	}
	for _, start := range g.order {
		if !reach[start] || state[start] != unseen {
			continue
		}
		path := []frame{{s: start}}
		state[start] = onPath
		for len(path) > 0 {
			top := &path[len(path)-1]
			edges := g.nodes[top.s].inPlace
			if top.next == len(edges) {
				state[top.s] = done
				path = path[:len(path)-1]
				continue
			}
			e := edges[top.next]
			top.next++
			switch state[e.to] {
			case unseen:
				state[e.to] = onPath
				path = append(path, frame{s: e.to, via: e})
			case onPath:
				// The loop is the path from e.to on, closed by e; the
				// tree alone has none, so a reference is on it.
				i := slices.IndexFunc(path, func(f frame) bool { return f.s == e.to })
				from, ref := top.s, e
				for j := i + 1; j < len(path) && ref.via == ""; j++ {
					from, ref = path[j-1].s, path[j].via
				}
				return fmt.Sprintf("the %s at %s comes back to itself without descending into the value, so a check would never end", ref.via, fragment(g.nodes[from].ptr))
			}
		}
	}
	return ""
}

// fragment spells a JSON Pointer as the URI fragment a "$ref" would use.
func fragment(ptr string) string { return "#" + ptr }

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

func escapePointer(tok string) string { return pointerEscaper.Replace(tok) }
