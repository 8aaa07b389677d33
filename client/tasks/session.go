package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/state"
)

// Conn is what the task logic needs of a session: package client's
// Conn implements it (a session it connected, or one it opened to reach
// remembered tasks without a handshake).
type Conn interface {
	// Label is how messages name the server.
	Label() string
	// Modern reports whether the session speaks 2026-07-28.
	Modern() bool
	// TaskSupport reports whether the server declares that tools/call
	// may run as a task (the 2025-11-25 capability, or the 2026-07-28
	// extension), and the tool's execution.taskSupport as listed
	// ("required", "optional", "forbidden"; "" when absent).
	TaskSupport(tool string) (toolsCall bool, support string)
	// CallTool sends tools/call, asking for a task (2025-11-25) when
	// asTask, and returns the result exactly as it arrived. Its error is
	// explained already.
	CallTool(ctx context.Context, tool string, args map[string]any, asTask bool) (json.RawMessage, error)
	// Request sends one task method, which the SDK does not know, with
	// the task id (when id is not "") and extra params, and returns the
	// result as it arrived. Its error is not explained: the caller knows
	// what it was doing.
	Request(ctx context.Context, method, id string, extra map[string]any) (json.RawMessage, error)
	// Explain turns the failure of what mcpc was doing ("list the tasks
	// of", followed by the server's label) into the error to report.
	Explain(ctx context.Context, what string, err error) error
	// Scrub is err's message with no credential of the server's URL.
	Scrub(err error) string
	// Answer answers a 2026-07-28 task's input requests, as any other
	// question is answered (flags, the terminal, or a refusal).
	Answer(ctx context.Context, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error)
	// Unanswered returns, and forgets, why a question the server asked
	// while a request ran could not be answered (nil: none).
	Unanswered() error
	// Note tells the user something on the way ("mcpc: note: …").
	Note(msg string)
	// Trace is one line of --verbose.
	Trace(line string)
	// Records is the store of the server's detached tasks (nil: none is
	// remembered).
	Records() *state.Tasks
	// Hold keeps what a task started in this session belongs to past this
	// invocation (a 2025-11-25 session: ending it would end the task), and
	// says what the task is scoped to.
	Hold() Scope
	// EndHTTPSession ends (DELETE) a 2025-11-25 session kept for detached
	// tasks. One the server no longer knows, or lets no client end, is
	// ended.
	EndHTTPSession(ctx context.Context, sid string) error
}

// Scope is what a server ties a task to: a later invocation reaches the
// task only with the same.
type Scope struct {
	ProtocolVersion string
	SessionID       string // 2025-11-25: the session that holds the task
	Credential      string // keyed hash of the credential in use
}

// taskCall sends one task method with the task id (when id is not "")
// and extra params, through the session.
func taskCall(ctx context.Context, s Conn, method, id string, extra map[string]any) (json.RawMessage, error) {
	return taskRequest(ctx, s, method, id, extra, true)
}

// taskRequest is taskCall, bounded by taskRequestBound or not (the
// tasks/result that waits for a 2025 task needing input to end).
func taskRequest(ctx context.Context, s Conn, method, id string, extra map[string]any, bounded bool) (json.RawMessage, error) {
	if !bounded {
		return s.Request(ctx, method, id, extra)
	}
	rctx, cancel := context.WithTimeout(ctx, taskRequestBound)
	defer cancel()
	res, err := s.Request(rctx, method, id, extra)
	if err != nil && ctx.Err() == nil && rctx.Err() != nil {
		return nil, &silentServer{method: method, err: err}
	}
	return res, err
}

// taskRequestBound bounds each of mcpc's task requests but the tasks/result
// that waits for a task's end: a poll answered with a stream that never
// ends, or not at all, must not hold the invocation (which may have no
// --timeout) for ever; nor a tasks/result for a task the server said had
// ended, which must answer at once.
var taskRequestBound = RequestBound

// RequestBound is the default of that bound, as the help states it.
const RequestBound = 30 * time.Second

// silentServer is a task request that got no answer within its bound.
type silentServer struct {
	method string
	err    error
}

func (e *silentServer) Error() string {
	return fmt.Sprintf("no answer to %s within %s", e.method, taskRequestBound)
}

func (e *silentServer) Unwrap() error { return e.err }
