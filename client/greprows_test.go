package client

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// A search's visits: a server searched with the pattern (a list that
// fails noted, the others searched), one that could not be reached noted
// as not searched, a named target that cannot be used noted before any,
// all in the targets' order whatever order they answered in.
func TestSearchVisit(t *testing.T) {
	targets := []Target{
		{Target: config.Target{Name: "up", Entry: &config.Entry{}}},
		{Target: config.Target{Name: "down", Entry: &config.Entry{}}},
		{Target: config.Target{Name: "bad", Named: true, Err: fail.New(fail.Config, "", "bad entry")}},
	}
	s := NewSearch(targets, Pattern{Re: regexp.MustCompile("(?i)echo")}, errors.New("interrupted"))
	ctx := context.Background()
	s.Visit(ctx, 1, nil, nil, fail.New(fail.Connection, "", "cannot reach down"))
	up := &fakeLister{lists: map[string]string{"tools": `{"tools":[{"name":"echo"},{"name":"add"}]}`},
		errs: map[string]error{"prompts": errors.New("prompts broke")}}
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Prompts: &mcp.PromptCapabilities{}}
	s.Visit(ctx, 0, up, caps, nil)
	var notes strings.Builder
	ms, err := s.Done(&notes)
	if err != nil || fmt.Sprint(ms) != "[{up tool echo   }]" {
		t.Errorf("matches %v, err %v", ms, err)
	}
	want := "mcpc: note: up: prompts broke\nmcpc: note: down not searched: cannot reach down\nmcpc: note: bad not searched: bad entry\n"
	if notes.String() != want {
		t.Errorf("notes\n%s\nwant\n%s", notes.String(), want)
	}
}

// grep's text rows: a resource named by its URI, a title when there is
// no description.
func TestMatchRows(t *testing.T) {
	got := MatchRows([]Match{
		{Server: "a", Kind: "tool", Name: "echo", Description: "Echoes", Title: "Echo"},
		{Server: "a", Kind: "resource", Name: "r", URI: "file:///r", Title: "R"},
	})
	want := [][4]string{{"a", "tool", "echo", "Echoes"}, {"a", "resource", "file:///r", "R"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("MatchRows = %q, want %q", got, want)
	}
}
