package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// fakeLister answers ListRaw from lists, failing the kinds in errs, and
// records what was asked.
type fakeLister struct {
	lists map[string]string
	errs  map[string]error
	asked []string
}

func (f *fakeLister) ListRaw(_ context.Context, kind string) (json.RawMessage, error) {
	f.asked = append(f.asked, kind)
	if err := f.errs[kind]; err != nil {
		return nil, err
	}
	return json.RawMessage(f.lists[kind]), nil
}

func TestSearch(t *testing.T) {
	boom := errors.New("boom")
	l := &fakeLister{
		lists: map[string]string{
			"tools":     `{"tools":[{"name":"echo","description":"Echoes"},{"name":"add","annotations":{"title":"Echo sum"}}]}`,
			"resources": `{"resources":[{"name":"r","uri":"file:///echo.txt"}]}`,
		},
		errs: map[string]error{"prompts": boom},
	}
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Prompts: &mcp.PromptCapabilities{}, Resources: &mcp.ResourceCapabilities{}}
	got, errs := Search(context.Background(), l, caps, "srv", func(m Match) bool {
		return strings.Contains(strings.ToLower(m.Name+m.URI+m.Title), "echo")
	})
	want := []Match{
		{Server: "srv", Kind: "tool", Name: "echo", Description: "Echoes"},
		{Server: "srv", Kind: "tool", Name: "add", Title: "Echo sum"},
		{Server: "srv", Kind: "resource", Name: "r", URI: "file:///echo.txt"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("matches:\n%+v\nwant\n%+v", got, want)
	}
	if len(errs) != 1 || errs[0] != boom {
		t.Errorf("errors: %v", errs)
	}
	// The line's JSON shape is grep's output contract.
	if b, _ := json.Marshal(want[1]); string(b) != `{"server":"srv","kind":"tool","name":"add","title":"Echo sum"}` {
		t.Errorf("JSON: %s", b)
	}
	// A list the server does not declare is not asked for.
	l.asked = nil
	Search(context.Background(), l, &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}, "srv", func(Match) bool { return true })
	if !reflect.DeepEqual(l.asked, []string{"tools"}) {
		t.Errorf("asked %q", l.asked)
	}
}

func TestSnapshot(t *testing.T) {
	l := &fakeLister{lists: map[string]string{
		"tools":     `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`,
		"prompts":   `{"prompts":[]}`,
		"templates": `{"resourceTemplates":[]}`,
	}}
	// Tools only declared: only tools asked for.
	if _, err := Snapshot(context.Background(), l, &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}, `server "x"`); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.asked, []string{"tools"}) {
		t.Errorf("asked %q", l.asked)
	}
	// Nothing declared: every list asked for.
	l.asked = nil
	if _, err := Snapshot(context.Background(), l, nil, `server "x"`); err != nil || len(l.asked) != 3 {
		t.Errorf("caps nil: asked %q, %v", l.asked, err)
	}
	// A list that cannot be read is a protocol failure naming the server.
	l = &fakeLister{lists: map[string]string{"tools": `{"tools":"no"}`}}
	_, err := Snapshot(context.Background(), l, &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}, `server "x"`)
	if fail.CodeOf(err) != fail.Protocol || !strings.HasPrefix(err.Error(), `server "x" sent a list mcpc cannot read: `) {
		t.Errorf("unreadable list: %v", err)
	}
}

// bytesLister answers ListRaw with lists as they are, no copy made.
type bytesLister map[string][]byte

func (l bytesLister) ListRaw(_ context.Context, kind string) (json.RawMessage, error) {
	return l[kind], nil
}

// A search reads each list where it lies: gjson.GetBytes copied the list
// (and Array made a result of each item) before the first match.
func TestSearchReadsListsInPlace(t *testing.T) {
	list := memtest.List("tools", 20000, func(i int) string { // about 4 MB
		return fmt.Sprintf(`{"name":"tool-%d","description":"%s","inputSchema":{"type":"object"}}`, i, strings.Repeat("d", 150))
	})
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	var found []Match
	var errs []error
	n := memtest.Allocated(func() {
		found, errs = Search(context.Background(), bytesLister{"tools": list}, caps, "s", func(m Match) bool { return m.Name == "tool-19999" })
	})
	t.Logf("a %d-byte list: %d bytes allocated", len(list), n)
	if len(found) != 1 || found[0].Name != "tool-19999" || errs != nil {
		t.Errorf("Search = %+v, %v", found, errs)
	}
	if limit := uint64(len(list) / 10); n > limit {
		t.Errorf("searching a %d-byte list allocated %d bytes, want at most %d", len(list), n, limit)
	}
}
