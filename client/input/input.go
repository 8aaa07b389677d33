//lint:file-ignore SA1019 logging, sampling and roots are deprecated in 2026-07-28, yet 2025 servers use them: mcpc shows the logs and refuses the rest

package input

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Input is how a connection answers what the server asks for while one of
// mcpc's requests runs: elicitations (as elicitation/create requests on
// 2025 servers, as input_required results on 2026-07-28 ones) and log
// messages. Answers.Input (answers.go) decides the answers; this file
// carries them over either era.
type Input struct {
	// Elicit answers one elicitation, form or URL mode. server names the
	// asking server for the user. An error ends the request the server
	// asked under, and is what mcpc reports.
	Elicit func(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// Log shows one server log message; only those at LogLevel or more
	// severe arrive.
	Log func(level, logger string, data any)
	// Note tells the user what mcpc refused on their behalf.
	Note func(msg string)
	// LogLevel is the least severe level wanted ("" is warning); it is
	// also what the server is asked to send.
	LogLevel string
	// Interactive says a person answers: accepting a URL then means they
	// have been there, so mcpc need not wait to hear it from the server.
	Interactive bool
}

func (in *Input) OffersElicitation() bool { return in != nil && in.Elicit != nil }

// LogLevels are the MCP (syslog) levels, least severe first.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// DefaultLogLevel is what mcpc shows unless told otherwise: problems, not
// chatter.
const DefaultLogLevel = "warning"

// Bounds on the 2026-07-28 retry loop. A server that keeps asking, or
// keeps answering "busy" (input_required with nothing to answer), must not
// keep a script waiting for ever.
var (
	maxInputRounds = 10
	maxBusyRounds  = 3
	busyPause      = 200 * time.Millisecond
)

// State follows the one request in flight, so that an answer that
// cannot be given (a missing required field, say) ends that request with
// its own error rather than with whatever the server makes of a refusal.
type State struct {
	In *Input // nil offers nothing
	// Label names the server in messages; Modern says it speaks
	// 2026-07-28 (input_required rounds, the per-request log level).
	Label  string
	Modern func() bool
	// Verified is told that the server answered a request in its era;
	// Pause pauses the request's idle bound while a person answers.
	Verified func()
	Pause    func() (resume func())

	mu     sync.Mutex
	op     context.Context
	abort  context.CancelCauseFunc
	failed error
	// done signals notifications/elicitation/complete by elicitation id.
	done map[string]chan struct{}
}

// begin marks the start of a request; end reports the answer that failed
// during it, if any.
func (st *State) begin(ctx context.Context) (context.Context, func() error) {
	ctx, cancel := context.WithCancelCause(ctx)
	st.mu.Lock()
	st.op, st.abort, st.failed = ctx, cancel, nil
	st.mu.Unlock()
	return ctx, func() error {
		st.mu.Lock()
		defer st.mu.Unlock()
		st.op, st.abort = nil, nil
		cancel(nil)
		return st.failed
	}
}

// fail records err as the reason the request in flight ends, and ends it.
func (st *State) fail(err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.failed == nil {
		st.failed = err
	}
	if st.abort != nil {
		st.abort(err)
	}
}

// withOp ties a server-to-client request's context to the request in
// flight: when mcpc's request ends (Ctrl-C, --timeout), so does the
// question asked under it.
func (st *State) withOp(ctx context.Context) (context.Context, func()) {
	st.mu.Lock()
	op := st.op
	st.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	if op == nil {
		return ctx, cancel
	}
	stop := context.AfterFunc(op, cancel)
	return ctx, func() { stop(); cancel() }
}

func (st *State) Level() string {
	if st.In == nil || st.In.LogLevel == "" {
		return DefaultLogLevel
	}
	return st.In.LogLevel
}

func (st *State) Note(msg string) {
	if st.In != nil && st.In.Note != nil {
		st.In.Note(msg)
	}
}

// HandleElicit answers a 2025 server's elicitation/create.
func (st *State) HandleElicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	ctx, stop := st.withOp(ctx)
	defer stop()
	defer st.pauseIdle()()
	res, err := st.In.Elicit(ctx, st.Label, req.Params)
	if err != nil {
		if ctx.Err() == nil {
			st.fail(err)
		}
		// The request it was asked under ends here, so the server learns
		// that the user did not answer.
		return withRelatedTask(req.Params, &mcp.ElicitResult{Action: "cancel"}), nil
	}
	return withRelatedTask(req.Params, res), nil
}

// RelatedTaskKey is the _meta key that ties a message to a task.
const RelatedTaskKey = "io.modelcontextprotocol/related-task"

// withRelatedTask ties mcpc's answer to the task its question was asked
// under: 2025-11-25 wants every response related to a task to carry the
// key (the server's question carries it).
func withRelatedTask(p *mcp.ElicitParams, res *mcp.ElicitResult) *mcp.ElicitResult {
	if p == nil || res == nil {
		return res
	}
	rt, ok := p.Meta[RelatedTaskKey]
	if !ok {
		return res
	}
	out := *res
	out.Meta = maps.Clone(res.Meta)
	if out.Meta == nil {
		out.Meta = mcp.Meta{}
	}
	out.Meta[RelatedTaskKey] = rt
	return &out
}

// ShowLog shows a server's log message at or above --log-level.
func (st *State) ShowLog(p *mcp.LoggingMessageParams) {
	if p == nil || LevelRank(string(p.Level)) < LevelRank(st.Level()) {
		return
	}
	st.In.Log(string(p.Level), p.Logger, p.Data)
}

// LevelRank orders levels; an unknown level counts as the most severe, so
// that it is shown rather than lost.
func LevelRank(l string) int {
	if i := slices.Index(LogLevels, l); i >= 0 {
		return i
	}
	return len(LogLevels)
}

// unoffered names the server-to-client requests mcpc does not offer.
var unoffered = map[string]string{
	"sampling/createMessage": "sampling (an LLM completion)",
	"roots/list":             "roots (the directories it may work in)",
}

// RefuseUnoffered answers a server that asks for what mcpc never offered
// with a JSON-RPC error, and tells the user.
func (st *State) RefuseUnoffered(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		what, ok := unoffered[method]
		if !ok {
			return next(ctx, method, req)
		}
		st.Note(fmt.Sprintf("%s asked for %s, which mcpc does not offer: refused", st.Label, what))
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "mcpc does not offer " + method}
	}
}

func (st *State) await(id string) chan struct{} {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done == nil {
		st.done = map[string]chan struct{}{}
	}
	ch := make(chan struct{}, 1)
	st.done[id] = ch
	return ch
}

func (st *State) forget(id string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.done, id)
}

func (st *State) Complete(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if ch, ok := st.done[req.Params.ElicitationID]; ok {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// failedNow returns (and forgets) the answer that could not be given
// while mcpc's own requests ran.
func (st *State) FailedNow() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	err := st.failed
	st.failed = nil
	return err
}

func (st *State) pauseIdle() (resume func()) {
	if st.Pause == nil {
		return func() {}
	}
	return st.Pause()
}
