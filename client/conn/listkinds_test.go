package conn

import (
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The one table of lists: every word found, its method and item key as
// the protocol names them, templates and resources offered by the same
// capability.
func TestListKinds(t *testing.T) {
	if got := ListKindWords(); !slices.Equal(got, []string{"tools", "resources", "templates", "prompts"}) {
		t.Errorf("words: %q", got)
	}
	k, ok := ListKindOf("templates")
	if !ok || k.Method != "resources/templates/list" || k.Key != "resourceTemplates" || k.Item != "resource template" {
		t.Errorf("templates: %+v %v", k, ok)
	}
	if _, ok := ListKindOf("tasks"); ok {
		t.Error("tasks is no list kind")
	}
	caps := &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}}
	for _, k := range ListKinds {
		want := k.Word == "resources" || k.Word == "templates"
		if k.Offered(caps) != want {
			t.Errorf("%s offered by resources only: %v", k.Word, k.Offered(caps))
		}
	}
}
