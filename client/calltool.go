package client

import (
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/tasks"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
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
	// Retry is how many times more a failure SEP-3313 marks retryable
	// is retried, for a tool annotated idempotent (--retry); 0: never.
	Retry int
	// IdempotencyKey is SEP-3182's key, sent with every attempt of the
	// call (--idempotency-key); with Retry and no key, one is made up.
	IdempotencyKey string
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
	key := c.IdempotencyKey
	if key == "" && c.Retry > 0 {
		key = newIdempotencyKey()
	}
	if key != "" {
		ctx = conn.WithIdempotencyKey(ctx, key)
	}
	for attempt := 1; ; attempt++ {
		stop := func() {}
		if c.Progress != nil {
			stop = c.Progress()
		}
		run, err := s.RunTool(ctx, c.Name, args, c.Tasks)
		stop()
		if err != nil || run == nil || run.Task != nil || run.Result == nil {
			return tool, run, err
		}
		f := noteFailure(c.Notes, c.Name, run.Result)
		if f == nil || attempt > c.Retry {
			return tool, run, nil
		}
		wait, why := f.retryWait(ctx, tool, attempt)
		if why != "" {
			textsafe.Note(c.Notes, "not retried: %s", why)
			return tool, run, nil
		}
		textsafe.Note(c.Notes, "retrying %q (attempt %d of %d) with idempotencyKey %s", c.Name, attempt+1, c.Retry+1, key)
		if transport.WaitFor(ctx.Done(), wait) {
			return tool, nil, context.Cause(ctx)
		}
	}
}
