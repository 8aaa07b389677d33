package schemadiff

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/schemamsg"
)

// The kinds of change.
const (
	Breaking   = "breaking"
	Compatible = "compatible"
)

// Change is one difference between two snapshots. Its JSON form is what a
// CI step reads: Kind (breaking or compatible), Object ("tool NAME",
// "prompt NAME", "template URI-TEMPLATE"), Path (where in the object: ""
// for the object itself, "arguments.filter.tags[]" in an input schema,
// "output.sum" in an output schema, "annotations.readOnlyHint",
// "execution.taskSupport", a template's "mimeType"), Change (a stable
// word: see Text) and the Old and New values where there are two.
type Change struct {
	Kind   string `json:"kind"`
	Object string `json:"object"`
	Path   string `json:"path"`
	Change string `json:"change"`
	Old    any    `json:"old"`
	New    any    `json:"new"`
	// why is the reason a NotCompared change was not compared.
	why string
}

// Text is the change as one line: `breaking: tool search_issues: argument
// "q" is now required`.
func (c Change) Text() string {
	subj := subject(c.Path)
	var msg string
	switch c.Change {
	case "removed", "added":
		msg = strings.TrimSpace(subj + " " + c.Change)
	case "added-required":
		msg = "required " + subj + " added"
	case "now-required":
		msg = subj + " is now required"
	case "now-optional":
		msg = subj + " is now optional"
	case "type-changed", "type-narrowed", "type-widened":
		msg = fmt.Sprintf("%s: type %s from %s to %s", subj, strings.TrimPrefix(c.Change, "type-"), typeText(c.Old), typeText(c.New))
	case "enum-value-removed":
		msg = fmt.Sprintf("%s: enum value %s removed", subj, jsonText(c.Old))
	case "enum-value-added":
		msg = fmt.Sprintf("%s: enum value %s added", subj, jsonText(c.New))
	case "enum-added":
		msg = fmt.Sprintf("%s: now limited to the values %s", subj, jsonText(c.New))
	case "enum-removed":
		msg = fmt.Sprintf("%s: no longer limited to the values %s", subj, jsonText(c.Old))
	case "closed":
		msg = subj + ": additional properties no longer allowed"
	case "opened":
		msg = subj + ": additional properties now allowed"
	case "description-changed", "title-changed":
		msg = strings.TrimPrefix(subj+": "+strings.TrimSuffix(c.Change, "-changed")+" changed", ": ")
	case "task-required":
		msg = fmt.Sprintf(`now requires a task (execution.taskSupport %s, was %s)`, jsonText(c.New), jsonText(c.Old))
	case "keyword":
		msg = subj + ": " + keywordText(c.Old, c.New)
	case NotCompared:
		msg = subj + " changed, and is too complex to compare in detail"
	case "ref-changed":
		msg = fmt.Sprintf("%s: $ref changed from %s to %s", subj, jsonText(c.Old), jsonText(c.New))
	default: // "changed"
		msg = fmt.Sprintf("%s changed from %s to %s", subj, jsonText(c.Old), jsonText(c.New))
	}
	return c.Kind + ": " + c.Object + ": " + msg
}

// Note is what mcpc says of change c on stderr besides listing it, or ""
// when nothing: a schema not compared in detail is named with the reason.
func (c Change) Note() string {
	if c.Change != NotCompared {
		return ""
	}
	return fmt.Sprintf("%s: %s not compared in detail: %s; it differs, so it counts as a breaking change", c.Object, subject(c.Path), c.why)
}

// keywordText says how one keyword changed: old and new are {keyword:
// value}, or nil where it is absent.
func keywordText(old, new any) string {
	om, _ := old.(map[string]any)
	nm, _ := new.(map[string]any)
	for k, ov := range om {
		if nv, ok := nm[k]; ok {
			return fmt.Sprintf("%s changed from %s to %s", k, jsonText(ov), jsonText(nv))
		}
		return fmt.Sprintf("%s %s removed", k, jsonText(ov))
	}
	for k, nv := range nm {
		return fmt.Sprintf("%s %s added", k, jsonText(nv))
	}
	return "changed"
}

// subject names the place a path points to, as a change line says it.
func subject(path string) string {
	for _, r := range []struct{ root, whole, part string }{
		{"arguments", "input schema", "argument"},
		{"output", "output schema", "output property"},
	} {
		if path == r.root {
			return r.whole
		}
		if rest, ok := strings.CutPrefix(path, r.root+"."); ok {
			return fmt.Sprintf("%s %q", r.part, rest)
		}
		if rest, ok := strings.CutPrefix(path, r.root); ok && strings.HasPrefix(rest, "[") {
			return fmt.Sprintf("%s %q", r.part, rest)
		}
	}
	if k, ok := strings.CutPrefix(path, "annotations."); ok {
		return "annotation " + k
	}
	return path
}

// typeText writes a type set: "string", "null|string", or "any".
func typeText(v any) string {
	l, _ := v.([]string)
	if l == nil {
		return "any"
	}
	if len(l) == 0 {
		return "nothing"
	}
	return strings.Join(l, "|")
}

// NotCompared is the change of a schema that differs but whose comparison
// would cost more than Budget: breaking, as nothing says it is not.
const NotCompared = "not-compared"

// Budget bounds the work of comparing one pair of schemas, in the steps
// the comparison counts (a location visited, a branch folded, a value
// written out or copied): far past real schemas, which take thousands,
// and under a second. anyOf branches that each refer to the next
// definition twice double the work at every level.
const Budget = 1 << 20

// Diff lists what changed from old to new, in a fixed order: tools, then
// prompts, then templates, each by name, each object's changes by path.
// It stops with ctx's cause when ctx ends.
func Diff(ctx context.Context, old, new *Snapshot) ([]Change, error) {
	var all []Change
	if _, err := DiffEach(ctx, old, new, func(c []Change) error { all = append(all, c...); return nil }); err != nil {
		return nil, err
	}
	return all, nil
}

// Summary is what a comparison found, of changes not held.
type Summary struct {
	Changes  int
	Breaking bool // one of them is breaking
}

// Fails says whether the comparison fails: one breaking change does, and
// with strict any change.
func (s Summary) Fails(strict bool) bool { return s.Breaking || strict && s.Changes > 0 }

// DiffEach is Diff giving each object's changes to each as they are found,
// in Diff's order, and holding none: a list of hundreds of thousands is
// written (or counted) as it comes, not held whole first. An error from
// each ends the comparison with it.
func DiffEach(ctx context.Context, old, new *Snapshot, each func([]Change) error) (Summary, error) {
	d := &differ{ctx: ctx, each: each}
	diffNamed(d, "tool", old.Tools, new.Tools, func(t Tool) string { return t.Name }, d.tool)
	diffNamed(d, "prompt", old.Prompts, new.Prompts, func(p Prompt) string { return p.Name }, d.prompt)
	diffNamed(d, "template", old.ResourceTemplates, new.ResourceTemplates, func(t Template) string { return t.URITemplate }, d.template)
	if d.err != nil {
		return Summary{}, d.err
	}
	return d.sum, nil
}

// found hands the object's changes, once sorted, to d.each, and forgets
// them.
func (d *differ) found() {
	if len(d.changes) == 0 {
		return
	}
	d.sum.Changes += len(d.changes)
	for _, c := range d.changes {
		d.sum.Breaking = d.sum.Breaking || c.Kind == Breaking
	}
	if err := d.each(d.changes); err != nil && d.err == nil {
		d.err = err
	}
	d.changes = d.changes[:0]
}

// diffNamed pairs the objects of a kind by name: a name only in old is
// removed (breaking), one only in new added.
func diffNamed[T any](d *differ, kind string, old, new []T, name func(T) string, same func(o, n T)) {
	om, nm := map[string]T{}, map[string]T{}
	for _, o := range old {
		om[name(o)] = o
	}
	for _, n := range new {
		nm[name(n)] = n
	}
	names := slices.Sorted(maps.Keys(om))
	for k := range nm {
		if _, ok := om[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		if d.err != nil {
			return
		}
		d.object = kind + " " + k
		o, inOld := om[k]
		n, inNew := nm[k]
		switch {
		case !inNew:
			d.add(Breaking, "", "removed", nil, nil)
		case !inOld:
			d.add(Compatible, "", "added", nil, nil)
		default:
			same(o, n)
		}
		// Within an object, by path; the walk's order within a path.
		slices.SortStableFunc(d.changes, func(a, b Change) int { return cmp.Compare(a.Path, b.Path) })
		d.found()
	}
}

// differ collects the changes of one comparison.
type differ struct {
	ctx     context.Context
	err     error    // ctx's cause, once it ended
	changes []Change // the current object's
	each    func([]Change) error
	sum     Summary
	object  string
	// stack is the (old, new) schema locations being compared, so that a
	// $ref cycle is walked once; budget bounds the work a hostile schema
	// can cause.
	stack   map[[2]string]bool
	budget  *schemamsg.Budget
	tooDeep bool // the walk went past maxDepth
}

func (d *differ) add(kind, path, change string, old, new any) {
	d.changes = append(d.changes, Change{Kind: kind, Object: d.object, Path: path, Change: change, Old: old, New: new})
}

// texts reports a changed title or description (compatible).
func (d *differ) texts(path, what, old, new string) {
	if old != new {
		d.add(Compatible, path, what+"-changed", old, new)
	}
}

func (d *differ) tool(o, n Tool) {
	d.texts("", "title", o.Title, n.Title)
	d.texts("", "description", o.Description, n.Description)
	for _, k := range sortedUnion(o.Annotations, n.Annotations) {
		ov, nv := o.Annotations[k], n.Annotations[k]
		if !reflect.DeepEqual(ov, nv) {
			d.add(Compatible, "annotations."+k, "changed", ov, nv)
		}
	}
	ot, nt := taskSupport(o), taskSupport(n)
	switch {
	case ot == nt:
	case nt == "required":
		d.add(Breaking, "execution.taskSupport", "task-required", ot, nt)
	case ot == "optional" && nt == "forbidden":
		// A client that asked for a task is now refused.
		d.add(Breaking, "execution.taskSupport", "changed", ot, nt)
	default:
		d.add(Compatible, "execution.taskSupport", "changed", ot, nt)
	}
	d.rawSchemas(o.InputSchema, n.InputSchema, "arguments", false)
	switch {
	case len(o.OutputSchema) == 0 && len(n.OutputSchema) == 0:
	case len(n.OutputSchema) == 0:
		d.add(Breaking, "output", "removed", nil, nil)
	case len(o.OutputSchema) == 0:
		d.add(Compatible, "output", "added", nil, nil)
	default:
		d.rawSchemas(o.OutputSchema, n.OutputSchema, "output", true)
	}
}

// rawSchemas compares two schemas kept as text, decoding them for the
// comparison alone. The same text is the same schema: nothing to walk.
func (d *differ) rawSchemas(o, n json.RawMessage, path string, output bool) {
	if bytes.Equal(o, n) {
		return
	}
	ov, oerr := decodeSchema(o)
	nv, nerr := decodeSchema(n)
	if oerr != nil || nerr != nil { // not from Load: it decoded them once
		d.notCompared(len(d.changes), path, "it cannot be decoded")
		return
	}
	d.schemas(ov, nv, path, output)
}

// taskSupport is a tool's execution.taskSupport, "forbidden" when absent
// (the MCP default).
func taskSupport(t Tool) string {
	if t.Execution == nil || t.Execution.TaskSupport == "" {
		return "forbidden"
	}
	return t.Execution.TaskSupport
}

// prompt compares prompts by reading their arguments as the input schema
// they amount to (each a property, "required" as listed), so that the
// rules are the tools' rules.
func (d *differ) prompt(o, n Prompt) {
	d.texts("", "title", o.Title, n.Title)
	d.texts("", "description", o.Description, n.Description)
	d.schemas(promptSchema(o), promptSchema(n), "arguments", false)
}

func promptSchema(p Prompt) any {
	props := map[string]any{}
	var req []any
	for _, a := range p.Arguments {
		s := map[string]any{}
		if a.Title != "" {
			s["title"] = a.Title
		}
		if a.Description != "" {
			s["description"] = a.Description
		}
		props[a.Name] = s
		if a.Required {
			req = append(req, a.Name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": req}
}

func (d *differ) template(o, n Template) {
	d.texts("", "title", o.Title, n.Title)
	d.texts("", "description", o.Description, n.Description)
	if o.Name != n.Name {
		d.add(Compatible, "name", "changed", o.Name, n.Name)
	}
	if o.MIMEType != n.MIMEType {
		d.add(Compatible, "mimeType", "changed", o.MIMEType, n.MIMEType)
	}
}

// schemas compares two whole schemas, each its own document for $refs,
// within Budget: past it, what was found of the pair is dropped for one
// NotCompared change (a partial list would look complete).
func (d *differ) schemas(o, n any, path string, output bool) {
	if d.err != nil {
		return
	}
	d.stack = map[[2]string]bool{}
	d.budget = schemamsg.NewBudget(d.ctx, Budget)
	d.tooDeep = false
	start := len(d.changes)
	d.schema(node{v: o, root: o, at: "#"}, node{v: n, root: n, at: "#"}, path, output, 0)
	switch {
	case d.budget.Err() != nil:
		d.err = d.budget.Err()
	case d.budget.Left() < 0:
		d.notCompared(start, path, fmt.Sprintf("comparing it would take more than the %d steps mcpc allows (its anyOf, oneOf, allOf and $ref branches multiply the work)", Budget))
	case d.tooDeep:
		d.notCompared(start, path, fmt.Sprintf("it nests more than %d levels deep", maxDepth))
	}
}

// notCompared replaces the changes found from start on by one NotCompared
// change at path, saying why.
func (d *differ) notCompared(start int, path, why string) {
	clear(d.changes[start:])
	d.changes = append(d.changes[:start], Change{Kind: Breaking, Object: d.object, Path: path, Change: NotCompared, why: why})
}

func sortedUnion[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
