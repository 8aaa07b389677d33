package toolschema

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpc-dev/mcpc/internal/memtest"
	"github.com/mcpc-dev/mcpc/internal/schemamsg"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestValidateArgs(t *testing.T) {
	tool := &mcp.Tool{Name: "t", InputSchema: map[string]any{
		"type":     "object",
		"required": []any{"q"},
		"properties": map[string]any{
			"q":   map[string]any{"type": "string"},
			"n":   map[string]any{"type": "integer"},
			"obj": map[string]any{"type": "object", "properties": map[string]any{"k": map[string]any{"type": "boolean"}}, "required": []any{"k"}},
		},
	}}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"q": "x", "n": 3}, ""},
		{map[string]any{}, `missing required argument "q"`},
		{map[string]any{"q": "x", "n": "three"}, `argument "n": three has type "string", want "integer"`},
		{map[string]any{"q": nil}, `argument "q": null has type "null", want "string"`},
		{map[string]any{"q": "x", "obj": map[string]any{}}, `missing required argument "k" in "obj"`},
	} {
		skipped, err := ValidateArgs(context.Background(), tool, tc.args)
		switch {
		case skipped != "":
			t.Errorf("%v: skipped: %s", tc.args, skipped)
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.want != "" && (fail.CodeOf(err) != fail.Usage || err.Error() != `arguments do not match the inputSchema of tool "t": `+tc.want):
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}

	// A schema that needs a network $ref is not fetched: the check is
	// skipped (and the caller says so) rather than blocking the call.
	remote := &mcp.Tool{Name: "r", InputSchema: map[string]any{
		"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": "https://schemas.example/x.json"}},
	}}
	skipped, err := ValidateArgs(context.Background(), remote, map[string]any{"x": 1})
	if err != nil || !strings.Contains(skipped, "https://schemas.example/x.json") {
		t.Fatalf("remote $ref: skipped %q, err %v", skipped, err)
	}
}

// A schema that refers back to itself without descending into the value
// would make the validator recurse until the stack overflows, which Go
// cannot recover from: the check is skipped, and the server judges.
func TestValidateArgsSelfReference(t *testing.T) {
	const never = " comes back to itself without descending into the value, so a check would never end"
	for _, tc := range []struct {
		schema map[string]any
		want   string
	}{
		{map[string]any{"type": "object", "anyOf": []any{map[string]any{"required": []any{"x"}}, map[string]any{"$ref": "#"}}},
			"the $ref at #/anyOf/1" + never},
		{map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"anyOf": []any{
			map[string]any{"type": "string"}, map[string]any{"$ref": "#/properties/x"}}}}},
			"the $ref at #/properties/x/anyOf/1" + never},
	} {
		tool := &mcp.Tool{Name: "loop", InputSchema: tc.schema, OutputSchema: tc.schema}
		if skipped, err := ValidateArgs(context.Background(), tool, map[string]any{"x": 1}); err != nil || skipped != tc.want {
			t.Errorf("%v: skipped %q, err %v; want %q", tc.schema, skipped, err, tc.want)
		}
		if mismatch, skipped, err := ValidateOutput(context.Background(), tool, []byte(`{"content":[],"structuredContent":{"x":1}}`)); err != nil || mismatch != "" || skipped != tc.want {
			t.Errorf("%v: output mismatch %q, skipped %q; want %q", tc.schema, mismatch, skipped, tc.want)
		}
	}
}

// chain is a schema of n definitions, each applying the next twice by
// combinator ("anyOf", "oneOf", "allOf"): 2^n checks of one value, from a
// schema of a few hundred bytes. The last wants leaf.
func chain(n int, combinator string, leaf map[string]any) map[string]any {
	defs := map[string]any{}
	for i := range n {
		next := map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", i+1)}
		defs[fmt.Sprintf("d%d", i)] = map[string]any{combinator: []any{next, next}}
	}
	defs[fmt.Sprintf("d%d", n)] = leaf
	return map[string]any{"type": "object", "$defs": defs, "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/d0"}}}
}

const overBudget = "a check of this value would take more than 134217728 steps, more than mcpc allows: its anyOf, oneOf, allOf and $ref branches multiply the work"

// Schemas whose check would cost more than the budget are not checked,
// with the reason, in little time and memory; before, a 2 KB one crashed
// mcpc at 1.5 GiB (outputSchema) or ran until killed (inputSchema).
func TestValidateHostileSchemasSkipped(t *testing.T) {
	if testing.Short() {
		t.Skip("budget-bound work on huge schemas (12s under -race), the same goroutine as every check: go test runs it, the race phase (-short) need not")
	}
	deep := map[string]any{"type": "string"}
	deepValue := any("v")
	for range 5000 {
		deep = map[string]any{"type": "array", "items": deep}
		deepValue = []any{deepValue}
	}
	refs := map[string]any{}
	for i := range 10000 {
		refs[fmt.Sprintf("r%d", i)] = map[string]any{"$ref": fmt.Sprintf("#/$defs/r%d", i+1)}
	}
	refs["r10000"] = map[string]any{"type": "integer"}
	enum := make([]any, 30000)
	many := make([]any, 30000)
	for i := range enum {
		enum[i] = fmt.Sprintf("value-%d", i)
		many[i] = "nope"
	}
	for _, tc := range []struct {
		name   string
		schema map[string]any
		value  any
		want   string
	}{
		{"anyOf", chain(40, "anyOf", map[string]any{"type": "string"}), 1, ""},
		{"anyOf passing", chain(40, "anyOf", map[string]any{"type": "integer"}), 1, ""},
		{"oneOf", chain(40, "oneOf", map[string]any{"type": "string"}), 1, ""},
		{"allOf", chain(40, "allOf", map[string]any{"type": "integer"}), 1, ""},
		{"5000 levels", map[string]any{"type": "object", "properties": map[string]any{"x": deep}}, deepValue,
			"decoding it would take more than 16777216 steps: 125054 bytes, nested at least 1931 levels deep"},
		{"$ref chain", map[string]any{"type": "object", "$defs": refs, "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/r0"}}}, 1, ""},
		{"30,000 enum values", map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "array", "items": map[string]any{"enum": enum}}}}, many, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := &mcp.Tool{Name: "t", InputSchema: tc.schema, OutputSchema: tc.schema}
			var skipped, mismatch string
			var err error
			compiledFor(tool, false) // compiling is linear in the schema: not what is measured
			compiledFor(tool, true)
			args := map[string]any{"x": tc.value}
			if n := memtest.Allocated(func() { skipped, err = ValidateArgs(context.Background(), tool, args) }); n > 8<<20 {
				t.Errorf("arguments: %d bytes allocated", n)
			}
			want := cmp.Or(tc.want, overBudget)
			if err != nil || skipped != want {
				t.Errorf("arguments: skipped %q, err %v", skipped, err)
			}
			result, _ := json.Marshal(map[string]any{"content": []any{}, "structuredContent": args})
			if n := memtest.Allocated(func() { mismatch, skipped, err = ValidateOutput(context.Background(), tool, result) }); n > 8<<20+2*uint64(len(result)) {
				t.Errorf("output: %d bytes allocated", n)
			}
			if err != nil || mismatch != "" || skipped != want {
				t.Errorf("output: mismatch %q, skipped %q, err %v", mismatch, skipped, err)
			}
		})
	}
}

// What the count lets through, the validator checks within the budget:
// the count is an upper bound of what it allocates.
func TestValidateWithinBudget(t *testing.T) {
	for n := 4; n < 17; n++ {
		for _, leaf := range []string{"string", "integer"} {
			tool := &mcp.Tool{Name: "t", InputSchema: chain(n, "anyOf", map[string]any{"type": leaf})}
			compiledFor(tool, false)
			var skipped string
			var err error
			alloc := memtest.Allocated(func() { skipped, err = ValidateArgs(context.Background(), tool, map[string]any{"x": 1}) })
			if skipped != "" {
				continue
			}
			if alloc > schemamsg.WorkBudget {
				t.Errorf("%d levels, %s: %d bytes allocated, over the budget", n, leaf, alloc)
			}
			if (err == nil) != (leaf == "integer") {
				t.Errorf("%d levels, %s: %v", n, leaf, err)
			}
		}
	}
	// A large result of the usual kind is well within it: 10,000 typed
	// rows.
	row := map[string]any{"type": "object", "required": []any{"id"}, "properties": map[string]any{
		"id": map[string]any{"type": "integer"}, "name": map[string]any{"type": "string", "maxLength": 100},
		"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"state": map[string]any{"enum": []any{"open", "closed"}}}}
	schema := map[string]any{"type": "object", "properties": map[string]any{"rows": map[string]any{"type": "array", "items": row}}}
	rows := make([]any, 10000)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "name": fmt.Sprintf("row %d", i), "tags": []any{"a", "b"}, "state": "open"}
	}
	result, _ := json.Marshal(map[string]any{"content": []any{}, "structuredContent": map[string]any{"rows": rows}})
	mismatch, skipped, err := ValidateOutput(context.Background(), &mcp.Tool{Name: "t", OutputSchema: schema}, result)
	if mismatch != "" || skipped != "" || err != nil {
		t.Errorf("10,000 rows: mismatch %q, skipped %q, err %v", mismatch, skipped, err)
	}
}

// The end of the invocation's context ends a check: its cause is returned.
func TestValidateContext(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("interrupted")
	cancel(cause)
	tool := &mcp.Tool{Name: "t", InputSchema: chain(12, "anyOf", map[string]any{"type": "string"})}
	if _, err := ValidateArgs(ctx, tool, map[string]any{"x": 1}); err != cause {
		t.Errorf("err %v, want %v", err, cause)
	}
}

// A result is read where it lies: gjson.GetBytes copied its
// structuredContent before anything looked at whether there was a schema
// to check it against, or an error result not to check.
func TestValidateOutputReadsInPlace(t *testing.T) {
	result, _ := json.Marshal(map[string]any{"content": []any{}, "isError": true,
		"structuredContent": map[string]any{"x": strings.Repeat("x", 4<<20)}})
	schema := map[string]any{"type": "object"}
	for _, tool := range []*mcp.Tool{{Name: "no output schema"}, {Name: "an error result", OutputSchema: schema}} {
		var mismatch, skipped string
		var err error
		n := memtest.Allocated(func() { mismatch, skipped, err = ValidateOutput(context.Background(), tool, result) })
		t.Logf("%s, %d-byte result: %d bytes allocated", tool.Name, len(result), n)
		if mismatch != "" || skipped != "" || err != nil {
			t.Errorf("%s: mismatch %q, skipped %q, err %v", tool.Name, mismatch, skipped, err)
		}
		if limit := uint64(len(result) / 10); n > limit {
			t.Errorf("%s: a %d-byte result allocated %d bytes, want at most %d", tool.Name, len(result), n, limit)
		}
	}
}
