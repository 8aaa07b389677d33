package listkind

import (
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The one table of lists: every word found, its method and item key as
// the protocol names them, templates and resources offered by the same
// capability, and the words messages say.
func TestKinds(t *testing.T) {
	if got := Words(); !slices.Equal(got, []string{"tools", "resources", "templates", "prompts"}) {
		t.Errorf("words: %q", got)
	}
	if got := Alternatives(); got != "tools|resources|templates|prompts" {
		t.Errorf("alternatives: %q", got)
	}
	k, ok := Of("templates")
	if !ok || k.Method != "resources/templates/list" || k.Key != "resourceTemplates" || k.Item != "resource template" || k.Op() != "list resource templates of" {
		t.Errorf("templates: %+v %v", k, ok)
	}
	if _, ok := Of("tasks"); ok {
		t.Error("tasks is no list kind")
	}
	caps := &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}}
	for _, k := range Kinds {
		want := k.Word == "resources" || k.Word == "templates"
		if k.Offered(caps) != want {
			t.Errorf("%s offered by resources only: %v", k.Word, k.Offered(caps))
		}
		// Each is offered by its own capability alone.
		if !k.Offered(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Resources: &mcp.ResourceCapabilities{}, Prompts: &mcp.PromptCapabilities{}}) {
			t.Errorf("%s: capability %q is none of the server's", k.Word, k.Capability)
		}
	}
}

// A list the server does not declare is not asked for, and is empty
// under its key; with no capabilities at all every list is asked for.
func TestDeclared(t *testing.T) {
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	if !Declared(caps, "tools") || Declared(caps, "templates") || !Declared(nil, "prompts") || !Declared(caps, "skills") {
		t.Error("declared")
	}
	if got := string(Undeclared("templates")); got != `{"resourceTemplates":[]}` {
		t.Errorf("undeclared templates: %s", got)
	}
}
