package client

import (
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/tasks"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

// ToolCaller is what a call needs of a connection (*conn.Conn, or a fake).
type ToolCaller interface {
	FindTool(tools []*mcp.Tool, name string) (*mcp.Tool, error)
	RunTool(ctx context.Context, tool string, args map[string]any, o tasks.Options) (*tasks.ToolRun, error)
}

// ToolLister is a connection that lists tools (*conn.Conn, or a fake).
type ToolLister interface {
	ListTools(ctx context.Context, only ...string) ([]*mcp.Tool, error)
}

// OpenTools connects to entry's server (open) and lists the tools named
// before any call: listing first finds app-only tools (refused), lets
// key=value words take the schema's types, and lets a modern HTTP session
// send the tool's Mcp-Param headers. The SDK is given only the tools
// named.
func OpenTools[S ToolLister](ctx context.Context, open func(context.Context, *config.Entry) (S, func(), error), entry *config.Entry, names ...string) (S, []*mcp.Tool, func(), error) {
	var none S
	sess, closeFn, err := open(ctx, entry)
	if err != nil {
		return none, nil, nil, err
	}
	tools, err := sess.ListTools(ctx, names...)
	if err != nil {
		closeFn()
		return none, nil, nil, err
	}
	return sess, tools, closeFn, nil
}

// ToolCall is one call of a tool, as call and each line of --batch make it.
type ToolCall struct {
	Name string
	// Args builds the arguments from the tool's definition (its schema
	// types key=value words).
	Args       func(*mcp.Tool) map[string]any
	NoValidate bool
	// Notes is where a schema mcpc cannot use is noted.
	Notes io.Writer
	// Progress, when set, shows the server's progress while the call runs
	// (call does; a --batch line does not).
	Progress func() (stop func())
	Tasks    tasks.Options
}

// CallTool is the one call path of call and --batch: the tool found among
// those listed (near misses named when it is not), its arguments built and
// checked against its inputSchema, and the call made, followed to its end
// when it runs as a task.
func CallTool(ctx context.Context, s ToolCaller, tools []*mcp.Tool, c ToolCall) (*mcp.Tool, *tasks.ToolRun, error) {
	tool, err := s.FindTool(tools, c.Name)
	if err != nil {
		return nil, nil, err
	}
	args := c.Args(tool)
	if !c.NoValidate {
		if err := toolschema.CheckArgs(ctx, c.Notes, tool, args); err != nil {
			return tool, nil, err
		}
	}
	stop := func() {}
	if c.Progress != nil {
		stop = c.Progress()
	}
	run, err := s.RunTool(ctx, c.Name, args, c.Tasks)
	stop()
	return tool, run, err
}
