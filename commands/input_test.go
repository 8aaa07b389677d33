package commands

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/elicit"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

// --answer words reach elicit typed by the field's schema, as key=value
// tool arguments are: n=5 is the number 5 for an integer field and stays
// text for a string one; --answers gives the rest, and --answer wins.
func TestInputAnswers(t *testing.T) {
	pairs, err := toolschema.ParsePairs([]string{"n=5", "code=007", "tags:=[\"a\"]"})
	if err != nil {
		t.Fatal(err)
	}
	o := &inputOptions{pairs: pairs, base: map[string]any{"code": "x", "ok": true}}
	if got, want := o.answers().Keys, []string{"code", "n", "ok", "tags"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Keys = %v, want %v", got, want)
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"n":    map[string]any{"type": "integer"},
		"code": map[string]any{"type": "string"},
		"ok":   map[string]any{"type": "boolean"},
		"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	}}
	var stderr bytes.Buffer
	a := elicit.NewAnswerer(o.answers(), nil, &stderr, false)
	res, err := a.Elicit(context.Background(), "server", &mcp.ElicitParams{Message: "hi", RequestedSchema: schema})
	want := map[string]any{"n": 5.0, "code": "007", "ok": true, "tags": []any{"a"}}
	if err != nil || res.Action != "accept" || !reflect.DeepEqual(res.Content, want) {
		t.Fatalf("Elicit = %+v, %v; want accept %v", res, err, want)
	}
}
