package elicit

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

var testSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"zeta":  map[string]any{"type": "string"},
		"name":  map[string]any{"type": "string", "title": "Name"},
		"n":     map[string]any{"type": "integer", "minimum": 1.0, "maximum": 9.0, "default": 3.0},
		"ok":    map[string]any{"type": "boolean"},
		"pick":  map[string]any{"type": "string", "oneOf": []any{map[string]any{"const": "a", "title": "Ay"}, map[string]any{"const": "b"}}},
		"multi": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"x", "y"}}},
		"email": map[string]any{"type": "string", "format": "email"},
	},
	"required": []any{"ok", "name"},
}

func TestFormFieldsOrder(t *testing.T) {
	fields, err := formFields(testSchema)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fields {
		names = append(names, f.name)
	}
	// Required ones in the schema's order, then the rest by name.
	want := []string{"ok", "name", "email", "multi", "n", "pick", "zeta"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("order = %v, want %v", names, want)
	}
	if got := fields[5].summary(); got != "one of a|b" {
		t.Errorf("pick summary = %q", got)
	}
	if got := fields[4].line(); got != "n (integer 1..9, default 3)" {
		t.Errorf("n line = %q", got)
	}
}

// word stands in for the key=value word reader the commands give: enough
// of it to type an integer.
func word(s string, types []string) any {
	if len(types) == 1 && types[0] == "integer" {
		return json.Number(s)
	}
	return s
}

// given answers with fixed values, numbers as exact json.Numbers, as the
// commands' key=value words come.
func given(values map[string]any) func(map[string][]string) map[string]any {
	return func(map[string][]string) map[string]any { return values }
}

func TestFieldParse(t *testing.T) {
	fields, _ := formFields(testSchema)
	byName := map[string]*field{}
	for _, f := range fields {
		byName[f.name] = f
	}
	for _, c := range []struct {
		field, in string
		want      any
		skip      bool
		err       string
	}{
		{"ok", "y", true, false, ""},
		{"ok", "No", false, false, ""},
		{"ok", "maybe", nil, false, "answer y or n"},
		{"ok", "", nil, false, "a value is required"},
		{"n", "", 3.0, false, ""},
		{"n", "7", 7.0, false, ""},
		{"zeta", "", nil, true, ""},
		{"pick", "2", "b", false, ""},
		{"pick", "a", "a", false, ""},
		{"pick", "c", nil, false, `"c" is not one of the choices`},
		{"multi", "2, x", []any{"y", "x"}, false, ""},
	} {
		v, skip, err := byName[c.field].parse(c.in, word)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %q: err = %v, want %q", c.field, c.in, err, c.err)
			}
			continue
		}
		if err != nil || skip != c.skip || !reflect.DeepEqual(v, c.want) {
			t.Errorf("%s %q = %#v, %v, %v; want %#v, %v", c.field, c.in, v, skip, err, c.want, c.skip)
		}
	}
	// Worded as a tool's arguments are (schemamsg): from the schema and
	// the value, naming the item of a list.
	for _, c := range []struct {
		field string
		v     any
		want  string
	}{
		{"n", 12.0, "12 is more than the maximum, 9"},
		{"n", 2.5, `2.5 has type "number", want "integer"`},
		{"multi", []any{"x", "z"}, `value "[1]": z is not one of "x", "y"`},
		{"pick", "c", `c is not one of "a", "b"`},
	} {
		if err := byName[c.field].check(c.v); err == nil || err.Error() != c.want {
			t.Errorf("check %s %v = %v, want %q", c.field, c.v, err, c.want)
		}
	}
}

// A field whose schema would send the validator round for ever is a
// schema mcpc cannot use, not a crash.
func TestFieldLoop(t *testing.T) {
	_, err := formFields(map[string]any{"properties": map[string]any{
		"x": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"$ref": "#"}}}}})
	want := `field "x": the $ref at #/anyOf/1 comes back to itself without descending into the value, so a check would never end`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

func TestDeclineHint(t *testing.T) {
	fields, _ := formFields(testSchema)
	want := "answer with --answer ok=true|false --answer name=TEXT, and pass --yes to take the defaults of the others"
	if got := declineHint(fields); got != want {
		t.Errorf("hint = %q\nwant %q", got, want)
	}
	only, _ := formFields(map[string]any{"properties": map[string]any{"n": map[string]any{"type": "integer", "default": 1.0}}})
	if got := declineHint(only); got != "pass --yes to accept the defaults" {
		t.Errorf("hint = %q", got)
	}
}

// The order of answers: flags, then --yes, then (no terminal) decline.
func TestAnswererForm(t *testing.T) {
	params := &mcp.ElicitParams{Message: "hi", RequestedSchema: testSchema}
	var stderr bytes.Buffer
	a := NewAnswerer(&Answers{Given: given(map[string]any{"name": "Ann", "ok": true, "n": json.Number("5")})}, nil, &stderr, false)
	res, err := a.Elicit(context.Background(), "server", params)
	if err != nil || res.Action != "accept" || !reflect.DeepEqual(res.Content, map[string]any{"name": "Ann", "ok": true, "n": 5.0}) {
		t.Fatalf("answers: %+v, %v", res, err)
	}

	a = NewAnswerer(&Answers{Given: given(map[string]any{"ok": false}), Yes: true}, nil, &stderr, false)
	if _, err := a.Elicit(context.Background(), "server", params); fail.CodeOf(err) != fail.Usage || !strings.Contains(err.Error(), `field "name", which has no default`) {
		t.Fatalf("--yes without name: %v", err)
	}

	a = NewAnswerer(&Answers{}, nil, &stderr, false)
	res, err = a.Elicit(context.Background(), "server", params)
	if err != nil || res.Action != "decline" || !strings.Contains(stderr.String(), "mcpc: server asks: hi\n") {
		t.Fatalf("decline: %+v, %v, %q", res, err, stderr.String())
	}
}

// The SDK passes on a mode or schema it does not know; the client's own
// transport declares only form and url, so no script's server can send
// them: they are pinned here, as the server that sends them is told.
func TestElicitUnusableRequest(t *testing.T) {
	a := NewAnswerer(&Answers{Yes: true}, nil, &bytes.Buffer{}, false)
	_, err := a.Elicit(context.Background(), "server X", &mcp.ElicitParams{Mode: "telepathy", Message: "m"})
	if f := fail.As(err); f == nil || f.Code != fail.Protocol || f.Msg != `server X asked for input in mode "telepathy", which mcpc does not know` || f.Hint != "" {
		t.Errorf("unknown mode: %#v", err)
	}
	bad := map[string]any{"type": "object", "properties": map[string]any{"name": "not a schema"}}
	_, err = a.Elicit(context.Background(), "server X", &mcp.ElicitParams{Message: "m", RequestedSchema: bad})
	if f := fail.As(err); f == nil || f.Code != fail.Protocol || !strings.HasPrefix(f.Msg, "server X asked for input with a schema mcpc cannot use: json: cannot unmarshal string") || f.Hint != "" {
		t.Errorf("unusable schema: %#v", err)
	}
}
