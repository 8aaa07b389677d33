package listpages

import (
	"encoding/json"
	"testing"

	"github.com/tidwall/gjson"
)

func TestJoin(t *testing.T) {
	p1 := json.RawMessage(`{"tools":[{"name":"a"},{"name":"b"}],"nextCursor":"2","ttlMs":5}`)
	p2 := json.RawMessage(`{"tools":[{"name":"c"}]}`)
	dropB := func(it gjson.Result) bool { return it.Get("name").Str == "b" }
	for _, c := range []struct {
		name  string
		pages []json.RawMessage
		drop  func(gjson.Result) bool
		want  string
	}{
		{"pages joined, cursor gone", []json.RawMessage{p1, p2}, nil, `{"tools":[{"name":"a"},{"name":"b"},{"name":"c"}],"ttlMs":5}`},
		{"an item dropped", []json.RawMessage{p1, p2}, dropB, `{"tools":[{"name":"a"},{"name":"c"}],"ttlMs":5}`},
		{"one page, nothing dropped: itself", []json.RawMessage{p2}, dropB, `{"tools":[{"name":"c"}]}`},
		{"one page with a cursor", []json.RawMessage{p1}, nil, `{"tools":[{"name":"a"},{"name":"b"}],"ttlMs":5}`},
		{"no items key", []json.RawMessage{json.RawMessage(`{"x":1}`)}, dropB, `{"x":1}`},
		{"no pages", nil, nil, `{"tools":[]}`},
	} {
		if got := string(Join(c.pages, "tools", c.drop)); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	// The one-page case returns the page itself, uncopied.
	if got := Join([]json.RawMessage{p2}, "tools", dropB); &got[0] != &p2[0] {
		t.Error("a page with nothing to change was copied")
	}
}
