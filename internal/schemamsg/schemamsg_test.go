package schemamsg

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// check validates inst against schema as mcpc does and words the result.
func check(t *testing.T, schema, inst string) string {
	t.Helper()
	var sch jsonschema.Schema
	var tree, v any
	if err := json.Unmarshal([]byte(schema), &sch); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(schema), &tree); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(inst), &v); err != nil {
		t.Fatal(err)
	}
	res, err := sch.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Validate(v); err != nil {
		return Mismatch(err, tree, v, "argument")
	}
	return ""
}

// The messages a failed validation is worded with: rebuilt from the
// schema and the value where jsonschema-go's chain of levels points.
func TestMismatchMessages(t *testing.T) {
	for _, tc := range []struct{ schema, inst, want string }{
		// As call_args.txtar, exact_output.txtar and batch.txtar pin them.
		{`{"type":"object","required":["q"],"properties":{"q":{"type":"string"}}}`, `{}`, `missing required argument "q"`},
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":"three"}`, `argument "n": three has type "string", want "integer"`},
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":2.5}`, `argument "n": 2.5 has type "number", want "integer"`},
		{`{"type":"object","properties":{"q":{"type":"string"}}}`, `{"q":null}`, `argument "q": null has type "null", want "string"`},
		{`{"type":"object","properties":{"o":{"type":"object","required":["k"]}}}`, `{"o":{}}`, `missing required argument "k" in "o"`},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"k":{"type":"boolean"}}}}}`, `{"o":{"k":"x"}}`, `argument "o.k": x has type "string", want "boolean"`},
		{`{"type":"object"}`, `[]`, `[] has type "array", want "object"`},
		// Worded better than the library does.
		{`{"type":"object","required":["q","r"]}`, `{}`, `missing required arguments "q", "r"`},
		{`{"type":"object","properties":{"q":{"type":["string","null"]}}}`, `{"q":5}`, `argument "q": 5 has type "integer", want "string" or "null"`},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":5}}}`, `{"n":3}`, `argument "n": 3 is less than the minimum, 5`},
		{`{"type":"object","properties":{"n":{"maximum":5}}}`, `{"n":7.5}`, `argument "n": 7.5 is more than the maximum, 5`},
		{`{"type":"object","properties":{"n":{"exclusiveMinimum":3}}}`, `{"n":3}`, `argument "n": 3 is not more than the exclusive minimum, 3`},
		{`{"type":"object","properties":{"n":{"exclusiveMaximum":3}}}`, `{"n":3}`, `argument "n": 3 is not less than the exclusive maximum, 3`},
		{`{"type":"object","properties":{"e":{"enum":["a",1]}}}`, `{"e":"c"}`, `argument "e": c is not one of "a", 1`},
		{`{"type":"object","properties":{"e":{"enum":["a"]}}}`, `{"e":null}`, `argument "e": null is not one of "a"`},
		{`{"type":"object","properties":{"o":{}},"additionalProperties":false}`, `{"o":1,"txt":"y","b":1}`, `unexpected arguments "b", "txt"`},
		{`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/N"}]}},"$defs":{"N":{"type":"null"}}}`, `{"a":1}`, `argument "a": 1 has type "integer", want "string" or "null"`},
		{`{"properties":{"c":{"type":"string","oneOf":[{"const":"a","title":"Ay"},{"const":"b"}]}}}`, `{"c":"z"}`, `argument "c": z is not one of "a", "b"`},
		{`{"properties":{"c":{"anyOf":[{"const":1},{"const":null}]}}}`, `{"c":2}`, `argument "c": 2 is not one of 1, null`},
		{`{"type":"object","properties":{"a":{"type":"object"}}}`, `{"a":[1,{"x":"ééééééééééééééééééééééééééééééééééééééééééééééééééééééééé"}]}`, `argument "a": [1,{"x":"éééééééééééééééééééééééééééééééééééééééééééééééé... has type "array", want "object"`},
		// Where: through $ref, allOf, if/then, items and additionalProperties.
		{`{"$defs":{"I":{"type":"object","required":["x"],"properties":{"x":{"type":"string"}}}},"properties":{"item":{"$ref":"#/$defs/I"}}}`, `{"item":{"x":1}}`, `argument "item.x": 1 has type "integer", want "string"`},
		{`{"$defs":{"I":{"type":"object","required":["x"]}},"properties":{"item":{"$ref":"#/$defs/I"}}}`, `{"item":{}}`, `missing required argument "x" in "item"`},
		{`{"allOf":[{"required":["z"]}]}`, `{}`, `missing required argument "z"`},
		{`{"if":{"required":["a"]},"then":{"required":["b"]}}`, `{"a":1}`, `missing required argument "b"`},
		{`{"properties":{"l":{"items":{"properties":{"x":{"type":"string"}}}}}}`, `{"l":[{"x":"a"},{"x":2}]}`, `argument "l[1].x": 2 has type "integer", want "string"`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"t":{"items":[{"type":"string"},{"type":"integer"}]}}}`, `{"t":["a","b"]}`, `argument "t[1]": b has type "string", want "integer"`},
		{`{"properties":{"t":{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}}}`, `{"t":["a","b"]}`, `argument "t[1]": b has type "string", want "integer"`},
		{`{"additionalProperties":{"type":"string"}}`, `{"a":1}`, `argument "a": 1 has type "integer", want "string"`},
		{`{"properties":{"a/b":{"type":"string"}}}`, `{"a/b":1}`, `argument "a/b": 1 has type "integer", want "string"`},
		// Anything else: the library's message for the keyword, named
		// where that is known.
		{`{"properties":{"s":{"pattern":"^x"}}}`, `{"s":"y"}`, `argument "s": pattern: "y" does not match regular expression "^x"`},
		{`{"properties":{"l":{"items":{"minLength":2}}}}`, `{"l":["ab","c"]}`, `argument "l": minLength: "c" contains 1 Unicode code points, fewer than 2`},
		{`{"properties":{"l":{"items":{"minLength":2}}}}`, `{"l":["c"]}`, `argument "l[0]": minLength: "c" contains 1 Unicode code points, fewer than 2`},
		{`{"$defs":{"I":{"$id":"https://x.example/i","properties":{"x":{"type":"string"}}}},"properties":{"item":{"$ref":"https://x.example/i"}}}`, `{"item":{"x":1}}`, `argument "item": type: 1 has type "integer", want "string"`},
		{`{"patternProperties":{"^a":{"type":"string"}}}`, `{"ab":1}`, `type: 1 has type "integer", want "string"`},
		{`{"properties":{"c":{"oneOf":[{"const":"a"},{"const":"a"}]}}}`, `{"c":"a"}`, `argument "c": oneOf: validated against both <anonymous schema> and <anonymous schema>`},
	} {
		if got := check(t, tc.schema, tc.inst); got != tc.want {
			t.Errorf("%s with %s:\n got %q\nwant %q", tc.schema, tc.inst, got, tc.want)
		}
	}
}

// A chain that does not read as jsonschema-go's levels is shown as it is:
// nothing is named rather than something wrong.
func TestMismatchUnknownChain(t *testing.T) {
	tree := map[string]any{"properties": map[string]any{"n": map[string]any{"type": "string"}}}
	inst := map[string]any{"n": 1.0}
	leaf := errors.New("type: 1 has type \"integer\", want \"string\"")
	for _, err := range []error{
		leaf,
		fmt.Errorf("checking root: %w", leaf),
		fmt.Errorf("validating root: %w", fmt.Errorf("validating /properties/n %w", leaf)),
	} {
		if got := Mismatch(err, tree, inst, "argument"); got != err.Error() {
			t.Errorf("%q: got %q", err, got)
		}
	}
	// A level naming a schema that is not in the tree ends the walk.
	err := fmt.Errorf("validating root: %w", fmt.Errorf("validating /properties/zz: %w", leaf))
	if got := Mismatch(err, tree, inst, "argument"); got != leaf.Error() {
		t.Errorf("unknown pointer: got %q", got)
	}
}

// Whatever the schema and the value, a failed validation is worded without
// a panic, and never as nothing; and a schema Loop passes never sends the
// validator round for ever.
func FuzzMismatch(f *testing.F) {
	f.Add(`{"properties":{"l":{"items":{"properties":{"x":{"type":"string"}}}}}}`, `{"l":[{"x":"a"},{"x":2}]}`)
	f.Add(`{"$defs":{"I":{"required":["x"]}},"properties":{"i":{"$ref":"#/$defs/I"}}}`, `{"i":{}}`)
	f.Add(`{"anyOf":[{"type":"string"},{"type":"null"}]}`, `1`)
	f.Add(`{"additionalProperties":false,"patternProperties":{"^a":{}}}`, `{"b":1}`)
	f.Add(`{"anyOf":[{"type":"string"},{"$ref":"#"}]}`, `1`)
	f.Add(`{"$defs":{"a":{"$anchor":"a","not":{"$ref":"#a"}}},"items":{"$ref":"#/$defs/a"}}`, `[1]`)
	f.Fuzz(func(t *testing.T, schema, inst string) {
		var sch jsonschema.Schema
		var tree, v any
		if json.Unmarshal([]byte(schema), &sch) != nil || json.Unmarshal([]byte(schema), &tree) != nil || json.Unmarshal([]byte(inst), &v) != nil {
			return
		}
		res, err := sch.Resolve(nil)
		if err != nil || Loop(&sch) != "" {
			return // a loop would overflow the stack: one Loop misses fails here
		}
		if err := res.Validate(v); err != nil && Mismatch(err, tree, v, "argument") == "" {
			t.Fatalf("no words for %v", err)
		}
	})
}
