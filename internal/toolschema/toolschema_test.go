package toolschema

import (
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
		skipped, err := ValidateArgs(tool, tc.args)
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
	skipped, err := ValidateArgs(remote, map[string]any{"x": 1})
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
		if skipped, err := ValidateArgs(tool, map[string]any{"x": 1}); err != nil || skipped != tc.want {
			t.Errorf("%v: skipped %q, err %v; want %q", tc.schema, skipped, err, tc.want)
		}
		if mismatch, skipped := ValidateOutput(tool, []byte(`{"content":[],"structuredContent":{"x":1}}`)); mismatch != "" || skipped != tc.want {
			t.Errorf("%v: output mismatch %q, skipped %q; want %q", tc.schema, mismatch, skipped, tc.want)
		}
	}
}
