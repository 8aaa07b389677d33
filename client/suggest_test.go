package client

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// finder records the tools FindTool was given and says none is there.
type finder struct{ given []string }

func (f *finder) FindTool(tools []*mcp.Tool, name string) (*mcp.Tool, error) {
	for _, t := range tools {
		f.given = append(f.given, t.Name)
	}
	return nil, fail.New(fail.Rejected, "did you mean "+f.given[0]+"?", "no tool named %q", name)
}

func (f *finder) ListHint() string { return "mcpc list srv" }

// One item of a list described: found, or for a tool FindTool's failure
// over the names the list has, or for another kind the one message.
func TestDescribedItem(t *testing.T) {
	list := []byte(`{"tools":[{"name":"echo"},{"name":"add"}],"prompts":[{"name":"greet"}]}`)
	f := &finder{}
	if item, err := DescribedItem(f, list, "tools", "add", "server \"srv\""); err != nil || string(item) != `{"name":"add"}` {
		t.Errorf("found: %s, %v", item, err)
	}
	_, err := DescribedItem(f, list, "tools", "ecko", "server \"srv\"")
	if err == nil || err.Error() != `no tool named "ecko"` || fail.As(err).Hint != "did you mean echo?" || strings.Join(f.given, ",") != "echo,add" {
		t.Errorf("missing tool: %v (hint %q), FindTool given %q", err, fail.As(err).Hint, f.given)
	}
	_, err = DescribedItem(f, list, "prompts", "greeet", `server "srv"`)
	if err == nil || err.Error() != `server "srv" has no prompt named "greeet"` || fail.As(err).Hint != "list them with: mcpc list srv prompts" || fail.CodeOf(err) != fail.Rejected {
		t.Errorf("missing prompt: %v", err)
	}
}
