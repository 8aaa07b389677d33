package client

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/listkind"
)

// ItemFinder is what describing one item of a list needs of a session
// besides the list: the tool finder (the entry's filter, the near misses)
// and the command that lists a kind.
type ItemFinder interface {
	FindTool(tools []*mcp.Tool, name string) (*mcp.Tool, error)
	ListHint() string
}

// DescribedItem is the item named name of list, what ListRaw returned for
// the kind word (FindItem), or the failure that says it is not there. For
// a tool that is FindTool's own, so that mcpc list SERVER TOOL and mcpc
// call say the same of a tool the entry's filter hides and of what was
// likely meant: it is given the names the list has, as tools, for that.
// For the other kinds label (how messages name the server) has no such
// item, and the hint is the command that lists them.
func DescribedItem(s ItemFinder, list []byte, kind, name, label string) ([]byte, error) {
	found, names := FindItem(list, kind, name)
	if found != nil {
		return found, nil
	}
	if kind == "tools" {
		tools := make([]*mcp.Tool, len(names))
		for i, n := range names {
			tools[i] = &mcp.Tool{Name: n}
		}
		if _, err := s.FindTool(tools, name); err != nil {
			return nil, err
		}
	}
	k, _ := listkind.Of(kind)
	return nil, fail.New(fail.Rejected, "list them with: "+s.ListHint()+" "+kind, "%s has no %s named %q", label, k.Item, name)
}
