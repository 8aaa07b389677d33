// Package toolschema checks a tool's arguments and structured output
// against its schemas, before sending and after receiving: the
// inputSchema before tools/call goes out, the outputSchema when the
// result comes back. Only local $refs are followed, so a schema never
// makes mcpc fetch anything, and a schema that cannot be used (or that
// would send the validator round in circles) skips the check rather
// than blocking the call, since the server validates too.
package toolschema

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/schemamsg"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// schemaHint is what to do about arguments that fail the inputSchema.
const schemaHint = "fix the arguments, or pass --no-validate to let the server judge them"

// ValidateArgs checks args against the tool's inputSchema. Only local $refs
// are followed: a schema never makes mcpc fetch anything. A schema that
// cannot be resolved, or whose check would cost more than
// schemamsg.WorkBudget, is reported through skipped rather than blocking
// the call, since the server validates too. err is the context's cause
// when ctx ends during the check.
func ValidateArgs(ctx context.Context, tool *mcp.Tool, args map[string]any) (skipped string, err error) {
	if args == nil {
		args = map[string]any{}
	}
	// Round-trip so numbers are float64 and nested values plain JSON types,
	// which is what the validator expects.
	b, _ := json.Marshal(args)
	msg, skipped, err := validate(ctx, tool, false, b, "argument")
	if err != nil {
		return "", err
	}
	if msg != "" {
		return "", fail.New(fail.Usage, schemaHint, "arguments do not match the inputSchema of tool %q: %s", tool.Name, msg)
	}
	return skipped, nil
}

// ValidateOutput checks a result's structuredContent against the tool's
// outputSchema, as clients SHOULD. It returns what does not match ("" when
// it does, or when there is nothing to check) and why a schema could not
// be used (as ValidateArgs says it); err is the context's cause when ctx
// ends during the check.
func ValidateOutput(ctx context.Context, tool *mcp.Tool, result json.RawMessage) (mismatch, skipped string, err error) {
	res := rawmsg.View(result)
	sc := res.Get("structuredContent")
	if tool == nil || tool.OutputSchema == nil || !sc.Exists() || res.Get("isError").Bool() {
		return "", "", nil
	}
	return validate(ctx, tool, true, rawmsg.Within(result, sc), "field")
}

// compiled is a schema ready to validate with, or why it cannot be used.
type compiled struct {
	res     *jsonschema.Resolved
	plan    *schemamsg.Plan // to bound a check's work before it runs
	raw     []byte          // the schema as JSON, for wording a mismatch
	skipped string
}

// compiledSchemas keeps each tool's schemas compiled, by tool and which
// schema: a --batch calls one tool many times, and compiling took most of
// each line's time.
var compiledSchemas sync.Map // schemaKey → *compiled

type schemaKey struct {
	tool   *mcp.Tool
	output bool
}

// compiledFor is the tool's input (or output) schema, compiled once; nil
// when it has none.
func compiledFor(tool *mcp.Tool, output bool) *compiled {
	schema := tool.InputSchema
	if output {
		schema = tool.OutputSchema
	}
	if schema == nil {
		return nil
	}
	key := schemaKey{tool, output}
	if c, ok := compiledSchemas.Load(key); ok {
		return c.(*compiled)
	}
	c := compile(schema)
	compiledSchemas.Store(key, c)
	return c
}

// compile resolves schema, following only local $refs: a schema never
// makes mcpc fetch anything.
func compile(schema any) *compiled {
	raw, err := json.Marshal(schema)
	if err != nil {
		return &compiled{skipped: err.Error()}
	}
	if over := schemamsg.DecodeWork(raw); over != "" {
		return &compiled{skipped: over}
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(raw, &sch); err != nil {
		return &compiled{skipped: err.Error()}
	}
	res, err := sch.Resolve(nil)
	if err != nil {
		return &compiled{skipped: err.Error()}
	}
	// A server's schema that loops would crash the validator.
	plan, loop := schemamsg.NewPlan(&sch)
	if loop != "" {
		return &compiled{skipped: loop}
	}
	return &compiled{res: res, plan: plan, raw: raw}
}

// validate checks the JSON instance against the tool's input (or output)
// schema, within schemamsg.WorkBudget and ctx.
//
// Compiling (bounded by schemamsg.DecodeWork, up to about a second), the
// count and the check run aside, so that --timeout, Ctrl-C and SIGTERM
// need not wait for them: each ends within its bound on its own, and only
// reads what it is given, so one left behind is harmless.
func validate(ctx context.Context, tool *mcp.Tool, output bool, instance []byte, noun string) (mismatch, skipped string, err error) {
	type outcome struct {
		mismatch, skipped string
		err               error
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		o.mismatch, o.skipped, o.err = check(ctx, compiledFor(tool, output), instance, noun)
		done <- o
	}()
	select {
	case o := <-done:
		return o.mismatch, o.skipped, o.err
	case <-ctx.Done():
		return "", "", context.Cause(ctx)
	}
}

// check checks the JSON instance against a compiled schema (nil: nothing
// to check), counting the work first.
func check(ctx context.Context, c *compiled, instance []byte, noun string) (mismatch, skipped string, err error) {
	if c == nil {
		return "", "", nil
	}
	if c.skipped != "" {
		return "", c.skipped, nil
	}
	var inst any
	if err := json.Unmarshal(instance, &inst); err != nil {
		return "", err.Error(), nil
	}
	over, err := c.plan.Work(ctx, inst, schemamsg.WorkBudget)
	if err != nil || over != "" {
		return "", over, err
	}
	if err := c.res.Validate(inst); err != nil {
		// Worded from the schema as plain JSON: raw, which just parsed.
		var tree any
		_ = json.Unmarshal(c.raw, &tree)
		return schemamsg.Mismatch(err, tree, inst, noun), "", nil
	}
	return "", "", nil
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
