package schemamsg

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schemas that send the validator round in circles on the same value are
// found, named by the reference that closes the circle; recursion through
// a part of the value (a tree of nodes) is not a loop.
func TestLoop(t *testing.T) {
	const never = " comes back to itself without descending into the value, so a check would never end"
	for _, tc := range []struct{ schema, want string }{
		{`{"anyOf":[{"type":"string"},{"$ref":"#"}]}`, "the $ref at #/anyOf/1" + never},
		{`{"type":"object","anyOf":[{"required":["x"]},{"$ref":"#"}]}`, "the $ref at #/anyOf/1" + never},
		{`{"$ref":"#"}`, "the $ref at #" + never},
		{`{"properties":{"x":{"not":{"$ref":"#/properties/x"}}}}`, "the $ref at #/properties/x/not" + never},
		// Two definitions referring to each other, percent-encoded.
		{`{"$ref":"#/$defs/a","$defs":{"a":{"allOf":[{"$ref":"#/%24defs/b"}]},"b":{"if":{"$ref":"#/$defs/a"}}}}`, "the $ref at #/$defs/b/if" + never},
		// Through an anchor, an $id and draft 7's definitions.
		{`{"$defs":{"a":{"$anchor":"here","oneOf":[{"$ref":"#here"}]}},"properties":{"p":{"$ref":"#here"}}}`, "the $ref at #/$defs/a/oneOf/0" + never},
		{`{"$id":"https://x.example/root.json","$defs":{"s":{"$id":"sub.json","then":{"$ref":"sub.json"}}},"$ref":"sub.json"}`, "the $ref at #/$defs/s/then" + never},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"d":{"dependencies":{"k":{"$ref":"#/definitions/d"}}}},"items":{"$ref":"#/definitions/d"}}`, "the $ref at #/definitions/d/dependencies/k" + never},
		{`{"$dynamicAnchor":"n","anyOf":[{"$dynamicRef":"#n"}]}`, "the $dynamicRef at #/anyOf/0" + never},
		// jsonschema-go's decoder reads keywords whatever their case.
		{`{"anyOf":[{"type":"string"},{"$Ref":"#"}]}`, "the $ref at #/anyOf/1" + never},
		{`{"ANYOF":[{"type":"string"},{"$ref":"#/anyOf/0"}]}`, ""},
		// Not loops: each round goes into a part of the value.
		{`{"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"$ref":"#/$defs/node"}`, ""},
		{`{"anyOf":[{"type":"string"},{"type":"array","items":{"$ref":"#"}}]}`, ""},
		{`{"additionalProperties":{"$ref":"#"},"propertyNames":{"$ref":"#"}}`, ""},
		{`{"prefixItems":[{"$ref":"#"}],"contains":{"$ref":"#"}}`, ""},
		// A loop in a definition nothing refers to is never entered.
		{`{"$defs":{"unused":{"$ref":"#/$defs/unused"}},"type":"object"}`, ""},
		{`{"type":"object","properties":{"q":{"type":"string"}}}`, ""},
		{`true`, ""},
	} {
		var sch jsonschema.Schema
		if err := json.Unmarshal([]byte(tc.schema), &sch); err != nil {
			t.Fatal(err)
		}
		if _, err := sch.Resolve(nil); err != nil {
			t.Fatalf("%s: %v", tc.schema, err)
		}
		if got := Loop(&sch); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.schema, got, tc.want)
		}
	}
}
