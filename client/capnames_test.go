package client

import (
	"reflect"
	"testing"

	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Capabilities are named in a fixed order, the tasks extension as "tasks",
// other extensions and experimental ones sorted, as the server wrote them.
func TestCapabilityNames(t *testing.T) {
	c := &mcp.ServerCapabilities{
		Resources:    &mcp.ResourceCapabilities{Subscribe: true},
		Prompts:      &mcp.PromptCapabilities{},
		Completions:  &mcp.CompletionCapabilities{},
		Extensions:   map[string]any{"b/ext": map[string]any{}, conn.TaskExtension: map[string]any{}, "a/ext\x1b]0;t\x07": nil},
		Experimental: map[string]any{"x": true},
	}
	want := []string{"resources (subscribe)", "prompts", "completions", "tasks", "a/ext\x1b]0;t\x07", "b/ext", "x (experimental)"}
	if got := CapabilityNames(c); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := CapabilityNames(nil); got != nil {
		t.Errorf("nil capabilities: %q", got)
	}
}
