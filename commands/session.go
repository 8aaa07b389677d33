package commands

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpc-dev/mcpc/client/conn"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/skills"
	clientstate "github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/tasks"
)

// connection is what the commands use of a connection to a server: the
// methods of *conn.Conn they call, and no more. It is the seam under
// the commands (gh injects its HTTP client the same way): the run
// functions have unit tests over a fake connection, and the scripts run the
// real one end to end.
type connection interface {
	// ListTools lists every tool, or with names only those (the SDK then
	// decodes no other).
	ListTools(ctx context.Context, only ...string) ([]*mcp.Tool, error)
	FindTool(tools []*mcp.Tool, name string) (*mcp.Tool, error)
	RunTool(ctx context.Context, tool string, args map[string]any, o tasks.Options) (*tasks.ToolRun, error)
	ListRaw(ctx context.Context, kind string) (json.RawMessage, error)
	ReadResource(ctx context.Context, uri string) (json.RawMessage, error)
	GetPrompt(ctx context.Context, name string, args map[string]string) (json.RawMessage, error)
	Complete(ctx context.Context, ref *mcp.CompleteReference, arg, value string, args map[string]string) (values []string, more bool, err error)
	ListSkills(ctx context.Context) (json.RawMessage, error)
	GetSkill(ctx context.Context, name string, all bool) (*skills.Entry, []skills.Fetched, error)
	ListHint() string
	// Ping times one round trip: ping, or server/discover on 2026-07-28.
	Ping(ctx context.Context) (time.Duration, error)
	// End closes as the invocation ends (conn.Conn.End); Close
	// closes politely.
	End(ctx context.Context, interrupted bool)
	Close()
	// label and initializeResult read what conn.Conn keeps in
	// fields: how messages name the server, and its handshake's answer.
	label() string
	initializeResult() *mcp.InitializeResult
	// speaksSSE says the session speaks the 2024-11-05 HTTP+SSE transport.
	speaksSSE() bool
}

// taskConnection is what mcpc task uses of a connection opened for detached
// tasks (conn.OpenTasks: no handshake, the remembered HTTP session).
type taskConnection interface {
	GetTask(ctx context.Context, id string) (*tasks.Task, error)
	FollowTask(ctx context.Context, t *tasks.Task, o tasks.Options) (json.RawMessage, error)
	CancelTask(ctx context.Context, id string) (json.RawMessage, error)
	ListTasks(ctx context.Context) (json.RawMessage, error)
	Modern() bool
	TaskRecords() []*clientstate.TaskRecord
	HTTPSessionsOfTasks() []string
	UseHTTPSession(id string)
	EndSettledHTTPSessions(ctx context.Context)
}

// connector reaches servers: the client package in a real invocation, a
// fake in unit tests (Env.connector).
type connector interface {
	connect(ctx context.Context, e *config.Entry, o conn.ConnectOptions) (connection, error)
	openTasks(ctx context.Context, e *config.Entry, o conn.ConnectOptions, id string) (taskConnection, error)
}

// clientConnector is the real connector.
type clientConnector struct{}

func (clientConnector) connect(ctx context.Context, e *config.Entry, o conn.ConnectOptions) (connection, error) {
	s, err := conn.Connect(ctx, e, o)
	if err != nil {
		return nil, err // an untyped nil: a nil *conn.Conn would not compare equal to nil
	}
	return clientConnection{s}, nil
}

func (clientConnector) openTasks(ctx context.Context, e *config.Entry, o conn.ConnectOptions, id string) (taskConnection, error) {
	s, err := conn.OpenTasks(ctx, e, o, id)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// clientConnection is a *conn.Conn as a session.
type clientConnection struct{ *conn.Conn }

func (s clientConnection) label() string                           { return s.Label }
func (s clientConnection) initializeResult() *mcp.InitializeResult { return s.CS.InitializeResult() }
func (s clientConnection) speaksSSE() bool                         { return s.SSE() }
