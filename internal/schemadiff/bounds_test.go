package schemadiff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// deepList is a tools list whose one tool's inputSchema nests n levels.
func deepList(n int) json.RawMessage {
	return json.RawMessage(`{"tools":[{"name":"deep","inputSchema":` + strings.Repeat(`{"type":"array","items":`, n) +
		`{"type":"string"}` + strings.Repeat(`}`, n) + `}]}`)
}

// A schema nested 4,900 levels is written about its own size (indented,
// 97 MB), and read back.
func TestMarshalDeep(t *testing.T) {
	list := deepList(4900)
	s, err := FromLists(list, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > len(list)+4096 {
		t.Fatalf("a %d-byte list is a %d-byte snapshot", len(list), len(b))
	}
	back, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(t, s, back); len(d) != 0 {
		t.Fatalf("read back, it differs: %v", d)
	}
}

// Down to indentDepth, the document is what json.Indent writes.
func TestIndentCapped(t *testing.T) {
	for _, doc := range []string{`{}`, `[]`, `{"a":[],"b":{},"c":[1,{"d":"e\"]}"}]}`, `"x"`, `[[[[1]]],{"k":null}]`} {
		var want bytes.Buffer
		json.Indent(&want, []byte(doc), "", "  ")
		got, ok := indentCapped([]byte(doc+"\n"), indentDepth, 1<<20)
		if !ok || string(got) != want.String()+"\n" {
			t.Errorf("%s:\ngot  %q\nwant %q", doc, got, want.String()+"\n")
		}
	}
	got, _ := indentCapped([]byte(`{"a":{"b":[1,2]}}`+"\n"), 1, 1<<20)
	if string(got) != "{\n  \"a\": {\"b\":[1,2]}\n}\n" {
		t.Errorf("capped at 1: %q", got)
	}
	if _, ok := indentCapped([]byte(`[1,2,3,4,5,6]`+"\n"), indentDepth, 10); ok {
		t.Error("past its limit, it did not give up")
	}
}

// branchy is a schema of 30 definitions, each applying the next twice
// through anyOf: 2^30 branches to fold, the last of type last.
func branchy(last string) json.RawMessage {
	defs := map[string]any{"d30": map[string]any{"type": last}}
	for i := range 30 {
		next := map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", i+1)}
		defs[fmt.Sprintf("d%d", i)] = map[string]any{"anyOf": []any{next, next}}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "$defs": defs, "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/d0"}}})
	return b
}

// Folding anyOf branches that multiply did not end; past the budget the
// schema is one breaking change, with a note that says why.
func TestDiffBranchy(t *testing.T) {
	o := &Snapshot{Tools: []Tool{{Name: "b", InputSchema: branchy("string")}}}
	n := &Snapshot{Tools: []Tool{{Name: "b", InputSchema: branchy("integer")}}}
	d := diff(t, o, n)
	if len(d) != 1 || d[0].Change != NotCompared || d[0].Kind != Breaking {
		t.Fatalf("changes %v", d)
	}
	if got, want := d[0].Text(), "breaking: tool b: input schema changed, and is too complex to compare in detail"; got != want {
		t.Errorf("text %q", got)
	}
	if got, want := d[0].Note(), "tool b: input schema not compared in detail: comparing it would take more than the 1048576 steps mcpc allows (its anyOf, oneOf, allOf and $ref branches multiply the work); it differs, so it counts as a breaking change"; got != want {
		t.Errorf("note %q", got)
	}
}

// An ended context (--timeout, Ctrl-C) stops a comparison with its cause.
func TestDiffCancelled(t *testing.T) {
	stop := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	o := &Snapshot{Tools: []Tool{{Name: "b", InputSchema: branchy("string")}}}
	n := &Snapshot{Tools: []Tool{{Name: "b", InputSchema: branchy("integer")}}}
	if d, err := Diff(ctx, o, n); !errors.Is(err, stop) || d != nil {
		t.Fatalf("changes %v, err %v", d, err)
	}
}

// Load decodes a document once, its schemas kept as text: about its own
// size allocated, a small multiple (decoded, then encoded and decoded again, it took ten
// times that).
func TestLoadMemory(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"tools":[`)
	for i := range 20000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool-%d","description":"Generated tool %d.","inputSchema":{"type":"object","properties":{"query":{"type":"string","enum":["a","b"]}},"required":["query"]}}`, i, i)
	}
	b.WriteString(`]}`)
	s, err := FromLists(b.Bytes(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := s.Marshal()
	a := memtest.Allocated(func() { s, err = Load(doc) })
	if err != nil || len(s.Tools) != 20000 {
		t.Fatal(err)
	}
	if a > 3*uint64(len(doc)) {
		t.Fatalf("Load of %d bytes allocated %d", len(doc), a)
	}
}

// Whatever tools a server lists, their snapshot reads back as the same
// snapshot.
func FuzzSnapshotRoundTrip(f *testing.F) {
	f.Add([]byte(`{"tools":[{"name":"a","inputSchema":{"type":"object","required":["y","x"],"properties":{"x":{"type":["null","string"]}}},"annotations":{"n":1.50}}]}`))
	f.Add([]byte(`{"tools":[{"name":"<b>","title":"\u2028","outputSchema":{"anyOf":[{"$ref":"#"},{"enum":[1,"1",null]}]}},{"name":"a"}]}`))
	f.Add([]byte(deepList(40)))
	f.Fuzz(func(t *testing.T, list []byte) {
		if len(list) > 8192 {
			return
		}
		s, err := FromLists(list, nil, nil)
		if err != nil {
			return
		}
		b, err := s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(b) {
			t.Fatalf("not JSON: %s", b)
		}
		back, err := Load(b)
		if err != nil {
			if strings.Contains(err.Error(), "has no name") {
				return // a listing mcpc snapshot took as it came
			}
			t.Fatalf("%v: %s", err, b)
		}
		if d, err := Diff(context.Background(), s, back); err != nil || len(d) != 0 {
			t.Fatalf("read back, it differs: %v %v", d, err)
		}
	})
}
