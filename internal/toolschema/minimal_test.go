package toolschema

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/memtest"
)

func TestMinimalValue(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{`{"type":"object"}`, `{}`},
		{`{}`, `{}`},
		{`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["b"]}`, `{"b":0}`},
		{`{"type":"object","required":["s","n","i","e","c","b","z","arr"],"properties":{
			"s":{"type":"string","minLength":3},"n":{"type":"number","minimum":2.5},
			"i":{"type":"integer","exclusiveMinimum":4},"e":{"enum":["x","y"]},"c":{"const":{"k":[1]}},
			"b":{"type":"boolean"},"z":{"type":["null","string"],"format":"date-time"},
			"arr":{"type":"array","minItems":2,"items":{"type":"integer","minimum":-3,"maximum":-1}}}}`,
			`{"arr":[-1,-1],"b":false,"c":{"k":[1]},"e":"x","i":5,"n":2.5,"s":"aaa","z":"1970-01-01T00:00:00Z"}`},
		{`{"type":"object","required":["p"],"properties":{"p":{"$ref":"#/$defs/point"}},
			"$defs":{"point":{"type":"object","required":["x","y"],"properties":{"x":{"type":"number","multipleOf":3,"minimum":1},"y":{"$ref":"#/$defs/y"}}},"y":{"type":"integer"}}}`,
			`{"p":{"x":3,"y":0}}`},
		// A recursive schema whose recursion is optional: the smallest
		// value stops at once.
		{`{"$ref":"#/definitions/node","definitions":{"node":{"type":"object","required":["name"],
			"properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/definitions/node"}}}}}}`, `{"name":""}`},
		{`{"anyOf":[false,{"type":"object","required":["k"],"properties":{"k":{"type":"string","format":"uuid"}}}]}`,
			`{"k":"00000000-0000-0000-0000-000000000000"}`},
		{`{"allOf":[{"type":"object","required":["a"],"properties":{"a":{"type":"string"}}},{"required":["b"],"properties":{"b":{"type":"boolean"}}}]}`,
			`{"a":"","b":false}`},
		{`{"type":"object","minProperties":2,"properties":{"z":{"type":"string"},"a":{"type":"number"},"m":{}}}`, `{"a":0,"m":null}`},
		{`{"type":"object","required":["t"],"properties":{"t":{"type":"array","minItems":2,"prefixItems":[{"type":"string"},{"type":"integer"}]}}}`, `{"t":["",0]}`},
	} {
		got, err := MinimalValue(context.Background(), json.RawMessage(c.schema))
		if err != nil || string(got) != c.want {
			t.Errorf("MinimalValue(%s) = %s, %v; want %s", c.schema, got, err, c.want)
		}
	}
}

// TestMinimalValueRefused: a schema no small value matches, or whose
// smallest value passes the bounds, is an error saying why, in bounded
// time and memory.
func TestMinimalValueRefused(t *testing.T) {
	nested := strings.Repeat(`{"type":"object","required":["a"],"properties":{"a":`, 200) + `{}` + strings.Repeat(`}}`, 200)
	many := strings.Repeat(`{"type":"array","minItems":1000,"items":`, 5) + `{"type":"string","minLength":100}` + strings.Repeat(`}`, 5)
	for _, c := range []struct{ schema, want string }{
		// A node that requires a child node has no finite value.
		{`{"$ref":"#/$defs/n","$defs":{"n":{"type":"object","required":["c"],"properties":{"c":{"$ref":"#/$defs/n"}}}}}`, "larger or deeper than mcpc makes"},
		{nested, "larger or deeper than mcpc makes"},
		{many, "larger or deeper than mcpc makes"},
		{`{"type":"array","minItems":1e9}`, "larger or deeper than mcpc makes"},
		{`{"type":"string","minLength":1e12}`, "larger or deeper than mcpc makes"},
		{`{"type":"object","required":["s"],"properties":{"s":{"type":"string","pattern":"^x+$"}}}`, "the smallest value mcpc makes does not match it: field \"s\""},
		{`{"type":"object","required":["s"],"properties":{"s":false}}`, "a subschema is false"},
		{`{"$ref":"https://example.com/schema"}`, "mcpc follows local $refs only"},
		{`{"$ref":"#/$defs/none"}`, "points at nothing in the schema"},
		{`{"type":"object","required":["n"],"properties":{"n":{"type":"number","minimum":1e308,"multipleOf":1e-308}}}`, "its bounds leave no number"},
	} {
		_, err := MinimalValue(context.Background(), json.RawMessage(c.schema))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("MinimalValue(%.80s…) = %v; want an error with %q", c.schema, err, c.want)
		}
	}
}

// TestMinimalValueBounded: a schema whose smallest value multiplies
// (arrays of 1000 of arrays of 1000 of long strings) or that is itself
// huge (200,000 required properties) ends in the bounds' error, having
// allocated a small multiple of the bound of what it makes, not the
// value's size.
func TestMinimalValueBounded(t *testing.T) {
	multiplies := strings.Repeat(`{"type":"array","minItems":1000,"items":`, 4) + `{"type":"string","minLength":60000}` + strings.Repeat(`}`, 4)
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{},"required":[`)
	for i := range 200_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d"`, i)
	}
	b.WriteString(`]}`)
	for name, schema := range map[string]string{"multiplies": multiplies, "huge": b.String()} {
		var err error
		n := memtest.Allocated(func() { _, err = MinimalValue(context.Background(), json.RawMessage(schema)) })
		if err == nil || !strings.Contains(err.Error(), "larger or deeper than mcpc makes") {
			t.Errorf("%s: MinimalValue = %v; want the bounds' error", name, err)
		}
		if limit := uint64(64<<20 + 40*len(schema)); n > limit {
			t.Errorf("%s: MinimalValue allocated %d bytes; want at most %d", name, n, limit)
		}
	}
}
