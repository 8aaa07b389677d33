package client

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
func TestAnswersTyped(t *testing.T) {
	pairs, err := toolschema.ParsePairs([]string{"n=5", "code=007", "tags:=[\"a\"]"})
	if err != nil {
		t.Fatal(err)
	}
	o := &Answers{Pairs: pairs, Base: map[string]any{"code": "x", "ok": true}}
	if got, want := o.elicit().Keys, []string{"code", "n", "ok", "tags"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Keys = %v, want %v", got, want)
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"n":    map[string]any{"type": "integer"},
		"code": map[string]any{"type": "string"},
		"ok":   map[string]any{"type": "boolean"},
		"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	}}
	var stderr bytes.Buffer
	a := elicit.NewAnswerer(o.elicit(), nil, &stderr, false)
	res, err := a.Elicit(context.Background(), "server", &mcp.ElicitParams{Message: "hi", RequestedSchema: schema})
	want := map[string]any{"n": 5.0, "code": "007", "ok": true, "tags": []any{"a"}}
	if err != nil || res.Action != "accept" || !reflect.DeepEqual(res.Content, want) {
		t.Fatalf("Elicit = %+v, %v; want accept %v", res, err, want)
	}
}

// ReadAnswers refuses, before reading anything, two flags that would both
// read stdin, and records which one takes it; a nil Answers offers no
// input at all.
func TestReadAnswers(t *testing.T) {
	for _, c := range []struct {
		f       AnswerFlags
		stdinBy string
		err     string
	}{
		{f: AnswerFlags{LogLevel: "loud"}, err: `--log-level must be one of debug, info, notice, warning, error, critical, alert, emergency, not "loud"`},
		{f: AnswerFlags{LogLevel: "info", Answers: "-", Batch: "-"}, err: "--answers - and --batch - cannot both read stdin"},
		{f: AnswerFlags{LogLevel: "info", Answers: "-", Words: []string{"x=@-"}}, err: "x=@- and --answers - cannot both read standard input"},
		{f: AnswerFlags{LogLevel: "info", Args: "-"}, stdinBy: "--args -"},
		{f: AnswerFlags{LogLevel: "info", Answers: "-", Stdin: bytes.NewBufferString(`{"a":1}`)}, stdinBy: "--answers -"},
	} {
		o, err := ReadAnswers(c.f)
		msg, by := "", ""
		if err != nil {
			msg = err.Error()
		} else {
			by = o.StdinBy
		}
		if msg != c.err || by != c.stdinBy {
			t.Errorf("%+v: err %q, StdinBy %q; want %q, %q", c.f, msg, by, c.err, c.stdinBy)
		}
	}
	if in := (*Answers)(nil).Input(nil, nil, false, nil); in != nil {
		t.Errorf("nil Answers: Input %+v, want nil", in)
	}
}
