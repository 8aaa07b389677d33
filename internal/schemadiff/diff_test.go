package schemadiff

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// js is a schema's JSON text as a snapshot holds it.
func js(t *testing.T, s string) json.RawMessage {
	t.Helper()
	if s == "" {
		return nil
	}
	if !json.Valid([]byte(s)) {
		t.Fatalf("bad test JSON %s", s)
	}
	return json.RawMessage(s)
}

// diff is Diff with no end to its context.
func diff(t *testing.T, old, new *Snapshot) []Change {
	t.Helper()
	changes, err := Diff(context.Background(), old, new)
	if err != nil {
		t.Fatal(err)
	}
	return changes
}

func lines(cs []Change) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.Text() + "\n")
	}
	return b.String()
}

// Each rule, on a tool's input schema (in) or output schema (out): the
// exact lines the pair gives.
func TestSchemaRules(t *testing.T) {
	obj := func(props, extra string) string {
		return `{"type":"object","properties":{` + props + `}` + extra + `}`
	}
	cases := []struct {
		name     string
		output   bool
		old, new string
		want     string
	}{
		{name: "unchanged", old: obj(`"q":{"type":"string"}`, ``), new: obj(`"q":{"type":"string"}`, ``), want: ``},
		{name: "required argument added",
			old:  obj(``, ``),
			new:  obj(`"q":{"type":"string"}`, `,"required":["q"]`),
			want: "breaking: tool t: required argument \"q\" added\n"},
		{name: "argument made required",
			old:  obj(`"q":{"type":"string"}`, ``),
			new:  obj(`"q":{"type":"string"}`, `,"required":["q"]`),
			want: "breaking: tool t: argument \"q\" is now required\n"},
		{name: "argument made optional",
			old:  obj(`"q":{"type":"string"}`, `,"required":["q"]`),
			new:  obj(`"q":{"type":"string"}`, ``),
			want: "compatible: tool t: argument \"q\" is now optional\n"},
		{name: "property removed",
			old:  obj(`"q":{"type":"string"},"r":{}`, ``),
			new:  obj(`"r":{}`, ``),
			want: "breaking: tool t: argument \"q\" removed\n"},
		{name: "optional argument added",
			old:  obj(``, ``),
			new:  obj(`"q":{"type":"string"}`, ``),
			want: "compatible: tool t: argument \"q\" added\n"},
		{name: "type changed",
			old:  obj(`"n":{"type":"string"}`, ``),
			new:  obj(`"n":{"type":"integer"}`, ``),
			want: "breaking: tool t: argument \"n\": type changed from string to integer\n"},
		{name: "type narrowed: a set",
			old:  obj(`"n":{"type":["string","null"]}`, ``),
			new:  obj(`"n":{"type":"string"}`, ``),
			want: "breaking: tool t: argument \"n\": type narrowed from null|string to string\n"},
		{name: "type narrowed: number to integer",
			old:  obj(`"n":{"type":"number"}`, ``),
			new:  obj(`"n":{"type":"integer"}`, ``),
			want: "breaking: tool t: argument \"n\": type narrowed from number to integer\n"},
		{name: "type narrowed: from any",
			old:  obj(`"n":{}`, ``),
			new:  obj(`"n":{"type":"string"}`, ``),
			want: "breaking: tool t: argument \"n\": type narrowed from any to string\n"},
		{name: "type widened",
			old:  obj(`"n":{"type":"integer"}`, ``),
			new:  obj(`"n":{"type":["number","null"]}`, ``),
			want: "compatible: tool t: argument \"n\": type widened from integer to null|number\n"},
		{name: "type the same, written two ways",
			old:  obj(`"n":{"type":["string"]}`, ``),
			new:  obj(`"n":{"type":"string"}`, ``),
			want: ``},
		{name: "anyOf of types is a type set",
			old:  obj(`"n":{"anyOf":[{"type":"string"},{"type":"null"}]}`, ``),
			new:  obj(`"n":{"type":["null","string"]}`, ``),
			want: ``},
		{name: "enum value removed",
			old:  obj(`"s":{"type":"string","enum":["open","closed"]}`, ``),
			new:  obj(`"s":{"type":"string","enum":["open"]}`, ``),
			want: "breaking: tool t: argument \"s\": enum value \"closed\" removed\n"},
		{name: "enum value added",
			old:  obj(`"s":{"enum":["open"]}`, ``),
			new:  obj(`"s":{"enum":["open","all"]}`, ``),
			want: "compatible: tool t: argument \"s\": enum value \"all\" added\n"},
		{name: "enum reordered",
			old:  obj(`"s":{"enum":["a","b"]}`, ``),
			new:  obj(`"s":{"enum":["b","a"]}`, ``),
			want: ``},
		{name: "enum added",
			old:  obj(`"s":{"type":"string"}`, ``),
			new:  obj(`"s":{"type":"string","enum":["a"]}`, ``),
			want: "breaking: tool t: argument \"s\": now limited to the values [\"a\"]\n"},
		{name: "const is a one-value enum",
			old:  obj(`"s":{"const":"a"}`, ``),
			new:  obj(`"s":{"enum":["a","b"]}`, ``),
			want: "compatible: tool t: argument \"s\": enum value \"b\" added\n"},
		{name: "additionalProperties closed",
			old:  obj(`"q":{}`, ``),
			new:  obj(`"q":{}`, `,"additionalProperties":false`),
			want: "breaking: tool t: input schema: additional properties no longer allowed\n"},
		{name: "additionalProperties opened",
			old:  obj(`"q":{}`, `,"additionalProperties":false`),
			new:  obj(`"q":{}`, `,"additionalProperties":true`),
			want: "compatible: tool t: input schema: additional properties now allowed\n"},
		{name: "description and title changed",
			old:  obj(`"q":{"description":"a","title":"A"}`, ``),
			new:  obj(`"q":{"description":"b","title":"B"}`, ``),
			want: "compatible: tool t: argument \"q\": title changed\ncompatible: tool t: argument \"q\": description changed\n"},
		{name: "nested object and array items",
			old: obj(`"filter":{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}}`, ``),
			new: obj(`"filter":{"type":"object","properties":{"tags":{"type":"array","items":{"type":"integer"}},"x":{}},"required":["x"]}`, ``),
			want: "breaking: tool t: argument \"filter.tags[]\": type changed from string to integer\n" +
				"breaking: tool t: required argument \"filter.x\" added\n"},
		{name: "draft-07 definitions and 2020-12 $defs",
			old: `{"type":"object","properties":{"f":{"$ref":"#/definitions/F"}},
				"definitions":{"F":{"type":"object","properties":{"a":{"type":"string"}}}}}`,
			new: `{"type":"object","properties":{"f":{"$ref":"#/$defs/F"}},
				"$defs":{"F":{"type":"object","properties":{"a":{"type":"boolean"}}}}}`,
			want: "breaking: tool t: argument \"f.a\": type changed from string to boolean\n"},
		{name: "a $ref and its inlined schema are the same",
			old:  `{"type":"object","properties":{"f":{"$ref":"#/$defs/F"}},"$defs":{"F":{"type":"string","enum":["a"]}}}`,
			new:  obj(`"f":{"type":"string","enum":["a"]}`, ``),
			want: ``},
		{name: "a $ref's siblings apply",
			old:  `{"type":"object","properties":{"f":{"$ref":"#/$defs/F","description":"x"}},"$defs":{"F":{"type":"string"}}}`,
			new:  `{"type":"object","properties":{"f":{"$ref":"#/$defs/F","description":"y"}},"$defs":{"F":{"type":"string"}}}`,
			want: "compatible: tool t: argument \"f\": description changed\n"},
		{name: "a recursive schema: the cycle is walked once",
			old: `{"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{"v":{"type":"string"},
				"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`,
			new: `{"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},
				"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`,
			// kids[] is the schema being compared: not walked again.
			want: "breaking: tool t: argument \"v\": type changed from string to integer\n"},
		{name: "a $ref to itself ends",
			old:  obj(`"x":{"anyOf":[{"type":"string"},{"$ref":"#/properties/x"}]}`, ``),
			new:  obj(`"x":{"anyOf":[{"type":"string"},{"$ref":"#/properties/x"}]}`, ``),
			want: ``},
		{name: "a $ref that points at itself ends",
			old:  obj(`"x":{"$ref":"#/properties/x"}`, ``),
			new:  obj(`"x":{"$ref":"#/properties/x"}`, ``),
			want: ``},
		{name: "a $ref not followed compares by its text",
			old:  obj(`"x":{"$ref":"https://schemas.example/x.json"}`, ``),
			new:  obj(`"x":{"$ref":"https://schemas.example/y.json"}`, ``),
			want: "breaking: tool t: argument \"x\": $ref changed from \"https://schemas.example/x.json\" to \"https://schemas.example/y.json\"\n"},
		{name: "allOf folds in",
			old:  `{"allOf":[{"type":"object","properties":{"a":{}}},{"properties":{"b":{}}}]}`,
			new:  `{"allOf":[{"type":"object","properties":{"a":{}}},{"properties":{"b":{}},"required":["b"]}]}`,
			want: "breaking: tool t: argument \"b\" is now required\n"},
		{name: "draft-07 tuple items",
			old:  obj(`"p":{"type":"array","items":[{"type":"number"},{"type":"number"}]}`, ``),
			new:  obj(`"p":{"type":"array","items":[{"type":"number"},{"type":"string"}]}`, ``),
			want: "breaking: tool t: argument \"p[1]\": type changed from number to string\n"},
		{name: "a bound tightened",
			old: obj(`"n":{"type":"integer","maximum":100,"minLength":1}`, ``),
			new: obj(`"n":{"type":"integer","maximum":10,"minLength":0}`, ``),
			want: "breaking: tool t: argument \"n\": maximum changed from 100 to 10\n" +
				"compatible: tool t: argument \"n\": minLength changed from 1 to 0\n"},
		{name: "a limit added and removed",
			old: obj(`"s":{"type":"string","format":"date"}`, ``),
			new: obj(`"s":{"type":"string","pattern":"^[a-z]+$"}`, ``),
			want: "compatible: tool t: argument \"s\": format \"date\" removed\n" +
				"breaking: tool t: argument \"s\": pattern \"^[a-z]+$\" added\n"},
		{name: "annotations and extensions are compatible",
			old: obj(`"s":{"default":"a","x-mcp-header":"S"}`, ``),
			new: obj(`"s":{"default":"b","examples":["c"]}`, ``),
			want: "compatible: tool t: argument \"s\": default changed from \"a\" to \"b\"\n" +
				"compatible: tool t: argument \"s\": examples [\"c\"] added\n" +
				"compatible: tool t: argument \"s\": x-mcp-header \"S\" removed\n"},

		// Outputs: the server produces the value, so the direction flips.
		{name: "output property removed", output: true,
			old:  obj(`"sum":{"type":"number"},"n":{}`, `,"required":["sum"]`),
			new:  obj(`"n":{}`, ``),
			want: "breaking: tool t: output property \"sum\" removed\n"},
		{name: "output property made optional", output: true,
			old:  obj(`"sum":{"type":"number"}`, `,"required":["sum"]`),
			new:  obj(`"sum":{"type":"number"}`, ``),
			want: "breaking: tool t: output property \"sum\" is now optional\n"},
		{name: "output property added, required", output: true,
			old:  obj(``, ``),
			new:  obj(`"sum":{"type":"number"}`, `,"required":["sum"]`),
			want: "compatible: tool t: output property \"sum\" added\n"},
		{name: "output type narrowed", output: true,
			old:  obj(`"n":{"type":["integer","null"]}`, ``),
			new:  obj(`"n":{"type":"integer"}`, ``),
			want: "compatible: tool t: output property \"n\": type narrowed from integer|null to integer\n"},
		{name: "output type widened", output: true,
			old:  obj(`"n":{"type":"integer"}`, ``),
			new:  obj(`"n":{"type":["integer","null"]}`, ``),
			want: "breaking: tool t: output property \"n\": type widened from integer to integer|null\n"},
		{name: "output enum value added", output: true,
			old:  obj(`"s":{"enum":["ok"]}`, ``),
			new:  obj(`"s":{"enum":["ok","maybe"]}`, ``),
			want: "breaking: tool t: output property \"s\": enum value \"maybe\" added\n"},
		{name: "output bound loosened", output: true,
			old:  obj(`"n":{"maximum":10}`, ``),
			new:  obj(`"n":{"maximum":100}`, ``),
			want: "breaking: tool t: output property \"n\": maximum changed from 10 to 100\n"},
		{name: "output closed", output: true,
			old:  obj(`"s":{}`, ``),
			new:  obj(`"s":{}`, `,"additionalProperties":false`),
			want: "compatible: tool t: output schema: additional properties no longer allowed\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, n := Tool{Name: "t", InputSchema: js(t, c.old)}, Tool{Name: "t", InputSchema: js(t, c.new)}
			if c.output {
				o = Tool{Name: "t", OutputSchema: js(t, c.old)}
				n = Tool{Name: "t", OutputSchema: js(t, c.new)}
			}
			got := lines(diff(t, &Snapshot{Tools: []Tool{o}}, &Snapshot{Tools: []Tool{n}}))
			if got != c.want {
				t.Errorf("got:\n%swant:\n%s", got, c.want)
			}
		})
	}
}

// The rules on whole objects: tools, prompts and templates added and
// removed, task support, annotations, titles, output schemas.
func TestObjectRules(t *testing.T) {
	old := &Snapshot{
		Tools: []Tool{
			{Name: "gone"},
			{Name: "run", Execution: &Execution{TaskSupport: "optional"}},
			{Name: "calc", Title: "Calc", Description: "adds", Annotations: map[string]any{"readOnlyHint": true},
				OutputSchema: js(t, `{"type":"object"}`)},
			{Name: "opt", Execution: &Execution{TaskSupport: "optional"}},
		},
		Prompts: []Prompt{
			{Name: "greet", Arguments: []PromptArgument{{Name: "name", Required: true}, {Name: "tone"}}},
			{Name: "old-prompt"},
		},
		ResourceTemplates: []Template{{URITemplate: "test://items/{id}", Name: "item", MIMEType: "text/plain"}, {URITemplate: "test://gone/{x}"}},
	}
	new := &Snapshot{
		Tools: []Tool{
			{Name: "run", Execution: &Execution{TaskSupport: "required"}},
			{Name: "calc", Title: "Calculator", Description: "adds numbers", Annotations: map[string]any{"readOnlyHint": false}},
			{Name: "opt"},
			{Name: "fresh"},
		},
		Prompts: []Prompt{
			{Name: "greet", Description: "hi", Arguments: []PromptArgument{{Name: "lang", Required: true}, {Name: "tone", Required: true, Description: "how"}}},
		},
		ResourceTemplates: []Template{{URITemplate: "test://items/{id}", Name: "item", MIMEType: "application/json"}},
	}
	want := `compatible: tool calc: title changed
compatible: tool calc: description changed
compatible: tool calc: annotation readOnlyHint changed from true to false
breaking: tool calc: output schema removed
compatible: tool fresh: added
breaking: tool gone: removed
breaking: tool opt: execution.taskSupport changed from "optional" to "forbidden"
breaking: tool run: now requires a task (execution.taskSupport "required", was "optional")
compatible: prompt greet: description changed
breaking: prompt greet: required argument "lang" added
breaking: prompt greet: argument "name" removed
breaking: prompt greet: argument "tone" is now required
compatible: prompt greet: argument "tone": description changed
breaking: prompt old-prompt: removed
breaking: template test://gone/{x}: removed
compatible: template test://items/{id}: mimeType changed from "text/plain" to "application/json"
`
	if got := lines(diff(t, old, new)); got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
	// The JSON form has every field, null where there is no value.
	b, _ := json.Marshal(diff(t, old, new)[7])
	if got := string(b); got != `{"kind":"breaking","object":"tool run","path":"execution.taskSupport","change":"task-required","old":"optional","new":"required"}` {
		t.Errorf("JSON: %s", got)
	}
	b, _ = json.Marshal(diff(t, old, new)[5])
	if got := string(b); got != `{"kind":"breaking","object":"tool gone","path":"","change":"removed","old":null,"new":null}` {
		t.Errorf("JSON: %s", got)
	}
}

// A snapshot is the same document however the server orders its lists
// and sets; what varies between listings is not kept.
func TestFromListsIsStable(t *testing.T) {
	a, err := FromLists(
		json.RawMessage(`{"tools":[{"name":"b","inputSchema":{"type":"object","required":["y","x"],"properties":{"x":{"type":["null","string"]},"y":{}}},"_meta":{"k":1},"icons":[]},{"name":"a","execution":{}}],"ttlMs":5,"nextCursor":"c"}`),
		json.RawMessage(`{"prompts":[{"name":"p","arguments":[{"name":"z"},{"name":"a","required":true}]}]}`),
		nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := FromLists(
		json.RawMessage(`{"tools":[{"name":"a"},{"inputSchema":{"properties":{"y":{},"x":{"type":["string","null"]}},"required":["x","y"],"type":"object"},"name":"b"}]}`),
		json.RawMessage(`{"prompts":[{"name":"p","arguments":[{"name":"a","required":true},{"name":"z"}]}]}`),
		nil)
	if err != nil {
		t.Fatal(err)
	}
	ab, _ := a.Marshal()
	bb, _ := b.Marshal()
	if string(ab) != string(bb) {
		t.Fatalf("not stable:\n%s\n%s", ab, bb)
	}
	want := `{
  "mcpcSnapshot": 1,
  "prompts": [
    {
      "arguments": [
        {
          "name": "a",
          "required": true
        },
        {
          "name": "z"
        }
      ],
      "name": "p"
    }
  ],
  "resourceTemplates": [],
  "tools": [
    {
      "name": "a"
    },
    {
      "inputSchema": {
        "properties": {
          "x": {
            "type": [
              "null",
              "string"
            ]
          },
          "y": {}
        },
        "required": [
          "x",
          "y"
        ],
        "type": "object"
      },
      "name": "b"
    }
  ]
}
`
	if string(ab) != want {
		t.Errorf("got:\n%s", ab)
	}
	if d := diff(t, a, b); len(d) != 0 {
		t.Errorf("a snapshot differs from itself: %v", d)
	}
}

func TestLoad(t *testing.T) {
	for _, c := range []struct{ doc, err string }{
		{`[]`, `not an mcpc snapshot: the document is not a JSON object`},
		{`{"tools":[]}`, `not an mcpc snapshot: it has no "mcpcSnapshot" format version`},
		{`{"mcpcSnapshot":2}`, `snapshot format 2 is newer than this mcpc reads (format 1)`},
		{`{"mcpcSnapshot":"1"}`, `unknown snapshot format "1" (this mcpc reads format 1)`},
		{`{"mcpcSnapshot":1,"tools":{}}`, `not an mcpc snapshot: cannot unmarshal object into Go struct field Snapshot.tools of type []schemadiff.Tool`},
		{`{"mcpcSnapshot":1,"tools":[{"title":"x"}]}`, `not an mcpc snapshot: tools[0] has no name`},
		{`{"mcpcSnapshot":1,"tools":[{"name":"x","inputSchema":{"type":"object"}}]}`, ``},
	} {
		_, err := Load([]byte(c.doc))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.err {
			t.Errorf("Load(%s): %q, want %q", c.doc, got, c.err)
		}
	}
}

// A hostile schema (references that fan out on every level) ends within
// the visit bound.
func TestHostileSchemaEnds(t *testing.T) {
	s := `{"$defs":{"n":{"type":"object","properties":{"a":{"$ref":"#/$defs/m"},"b":{"$ref":"#/$defs/m"}}},` +
		`"m":{"type":"object","properties":{"a":{"$ref":"#/$defs/n"},"b":{"$ref":"#/$defs/n"},"c":{"anyOf":[{"$ref":"#/$defs/m"},{"$ref":"#/$defs/n"}]}}}},"$ref":"#/$defs/n"}`
	o := &Snapshot{Tools: []Tool{{Name: "t", InputSchema: js(t, s)}}}
	n := &Snapshot{Tools: []Tool{{Name: "t", InputSchema: js(t, strings.ReplaceAll(s, `"type":"object"`, `"type":"array"`))}}}
	if d := diff(t, o, n); len(d) == 0 {
		t.Fatal("no change found")
	}
}

// Enums of 30,000 values compare as sets, in linear time: pair by pair
// they did not finish in 30 s.
func TestDiffLargeEnum(t *testing.T) {
	enum := func(from, n int) []any {
		l := make([]any, n)
		for i := range l {
			l[i] = fmt.Sprintf("v%d", from+i)
		}
		return l
	}
	snap := func(e []any) *Snapshot {
		s, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"enum": e}}})
		return &Snapshot{Tools: []Tool{{Name: "t", InputSchema: s}}}
	}
	changes := diff(t, snap(enum(0, 30000)), snap(enum(1, 30000)))
	if len(changes) != 2 || changes[0].Change != "enum-value-removed" || changes[0].Old != "v0" || changes[1].Change != "enum-value-added" || changes[1].New != "v30000" {
		t.Fatalf("changes %v", changes)
	}
}
