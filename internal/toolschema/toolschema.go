// Package toolschema checks a tool's arguments and structured output
// against its schemas, before sending and after receiving: the
// inputSchema before tools/call goes out, the outputSchema when the
// result comes back. Only local $refs are followed, so a schema never
// makes mcpc fetch anything, and a schema that cannot be used (or that
// would send the validator round in circles) skips the check rather
// than blocking the call, since the server validates too.
package toolschema

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/schemamsg"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
)

// schemaHint is what to do about arguments that fail the inputSchema.
const schemaHint = "fix the arguments, or pass --no-validate to let the server judge them"

// ValidateArgs checks args against the tool's inputSchema. Only local $refs
// are followed: a schema never makes mcpc fetch anything. A schema that
// cannot be resolved is reported through skipped rather than blocking the
// call, since the server validates too.
func ValidateArgs(tool *mcp.Tool, args map[string]any) (skipped string, err error) {
	if args == nil {
		args = map[string]any{}
	}
	// Round-trip so numbers are float64 and nested values plain JSON types,
	// which is what the validator expects.
	b, _ := json.Marshal(args)
	msg, skipped := validate(tool.InputSchema, b, "argument")
	if msg != "" {
		return "", fail.New(fail.Usage, schemaHint, "arguments do not match the inputSchema of tool %q: %s", tool.Name, msg)
	}
	return skipped, nil
}

// ValidateOutput checks a result's structuredContent against the tool's
// outputSchema, as clients SHOULD. It returns what does not match ("" when
// it does, or when there is nothing to check) and why a schema could not
// be used.
func ValidateOutput(tool *mcp.Tool, result json.RawMessage) (mismatch, skipped string) {
	sc := gjson.GetBytes(result, "structuredContent")
	if tool == nil || tool.OutputSchema == nil || !sc.Exists() || gjson.GetBytes(result, "isError").Bool() {
		return "", ""
	}
	return validate(tool.OutputSchema, []byte(sc.Raw), "field")
}

// validate checks the JSON instance against schema. Only local $refs are
// followed: a schema never makes mcpc fetch anything.
func validate(schema any, instance []byte, noun string) (mismatch, skipped string) {
	if schema == nil {
		return "", ""
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return "", err.Error()
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(raw, &sch); err != nil {
		return "", err.Error()
	}
	res, err := sch.Resolve(nil)
	if err != nil {
		return "", err.Error()
	}
	// A server's schema that loops would crash the validator.
	if loop := schemamsg.Loop(&sch); loop != "" {
		return "", loop
	}
	var inst any
	if err := json.Unmarshal(instance, &inst); err != nil {
		return "", err.Error()
	}
	if err := res.Validate(inst); err != nil {
		// Worded from the schema as plain JSON: raw, which just parsed.
		var tree any
		_ = json.Unmarshal(raw, &tree)
		return schemamsg.Mismatch(err, tree, inst, noun), ""
	}
	return "", ""
}

// PropertyTypes maps each top-level property of a tool's inputSchema to its
// declared JSON type(s), so key=value arguments can be coerced.
func PropertyTypes(tool *mcp.Tool) map[string][]string {
	out := map[string][]string{}
	m, ok := schemaMap(tool.InputSchema)
	if !ok {
		return out
	}
	props, _ := m["properties"].(map[string]any)
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		switch t := pm["type"].(type) {
		case string:
			out[name] = []string{t}
		case []any:
			for _, x := range t {
				if s, ok := x.(string); ok {
					out[name] = append(out[name], s)
				}
			}
		}
	}
	return out
}

func schemaMap(s any) (map[string]any, bool) {
	if m, ok := s.(map[string]any); ok {
		return m, true
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil, false
	}
	return m, true
}
