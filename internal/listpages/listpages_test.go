package listpages

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/memtest"
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

// bigPage is a tools/list page of n generated tools.
func bigPage(n int) []byte {
	b := []byte(`{"tools":[`)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"name":"tool-%d","inputSchema":{"type":"object","properties":{"query":{"type":"string"}}}}`, i)
	}
	return append(b, `],"nextCursor":"n"}`...)
}

// The cut that hands the SDK only the called tool reads the page where it
// lies: gjson.ParseBytes copied the whole page first (a 30 MB list cost 30
// MB more to keep one tool).
func TestKeepReadsThePageInPlace(t *testing.T) {
	page := bigPage(50000) // about 4.5 MB
	var got []byte
	n := memtest.Allocated(func() {
		got = Keep(page, "tools", func(name string) bool { return name == "tool-49999" })
	})
	want := `{"tools":[{"name":"tool-49999","inputSchema":{"type":"object","properties":{"query":{"type":"string"}}}}],"nextCursor":"n"}`
	if string(got) != want {
		t.Errorf("Keep = %s, want %s", got, want)
	}
	if limit := uint64(len(page) / 10); n > limit {
		t.Errorf("cutting a %d-byte page down to one tool allocated %d bytes, want at most %d", len(page), n, limit)
	}
}

func TestFindAndNames(t *testing.T) {
	page := bigPage(50000)
	var it gjson.Result
	n := memtest.Allocated(func() { it = Find(page, "tools", "tool-49999") })
	if it.Get("name").Str != "tool-49999" || !it.Get("inputSchema").IsObject() {
		t.Errorf("Find = %s", it.Raw)
	}
	if n > 64<<10 {
		t.Errorf("finding one tool of %d bytes allocated %d bytes (an array of every item?)", len(page), n)
	}
	if it := Find(page, "tools", "tool-50000"); it.Exists() {
		t.Errorf("Find of a missing name = %s", it.Raw)
	}
	var names []string
	Names([]byte(`{"tools":[{"name":"a"},{"title":"no name"},{"name":"b"}]}`), "tools", func(_ gjson.Result, name string) {
		names = append(names, name)
	})
	if got := fmt.Sprint(names); got != "[a  b]" {
		t.Errorf("Names gave %s", got)
	}
}

// Join takes the pages over: each but the first is let go once copied, so
// that the collector can take it back before the joined list is done.
func TestJoinLetsPagesGo(t *testing.T) {
	pages := []json.RawMessage{
		json.RawMessage(`{"tools":[{"name":"a"}],"nextCursor":"1"}`),
		json.RawMessage(`{"tools":[{"name":"b"}],"nextCursor":"2"}`),
		json.RawMessage(`{"tools":[{"name":"c"}]}`),
	}
	if got := string(Join(pages, "tools", nil)); got != `{"tools":[{"name":"a"},{"name":"b"},{"name":"c"}]}` {
		t.Errorf("Join = %s", got)
	}
	if pages[0] == nil || pages[1] != nil || pages[2] != nil {
		t.Errorf("pages after Join: %q", pages)
	}
}

// Whatever valid JSON a server sends as a list page, the cut is valid
// JSON, and Join's document too (the SDK decodes the one, mcpc prints the
// other).
func FuzzKeepAndJoin(f *testing.F) {
	f.Add(`{"tools":[{"name":"a"},{"name":"b","_meta":{"ui":{"visibility":["app"]}}}],"nextCursor":"x"}`, "a")
	f.Add(`{"tools":{"name":"a"},"x":[1]}`, "a")
	f.Add(`[{"tools":[]}]`, "")
	f.Fuzz(func(t *testing.T, page, name string) {
		if !json.Valid([]byte(page)) {
			return
		}
		if out := Keep([]byte(page), "tools", func(n string) bool { return n == name }); !json.Valid(out) {
			t.Errorf("Keep(%q) = %q, not JSON", page, out)
		}
		pages := []json.RawMessage{json.RawMessage(page), json.RawMessage(page)}
		if out := Join(pages, "tools", AppOnly); !json.Valid(out) {
			t.Errorf("Join of %q = %q, not JSON", page, out)
		}
	})
}
