package conn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// post sends one of mcpc's own requests to an HTTP server, beside the
// SDK: with the session's id on a 2025 server (which may be a session
// remembered from an earlier invocation, which the SDK cannot resume),
// with the routing headers and _meta envelope on a 2026-07-28 one. The
// answer may come as JSON or as an event stream that first carries the
// server's own requests (an elicitation asked under a task), which are
// answered on the way.
func (s *Conn) post(ctx context.Context, method, name string, params json.RawMessage) (json.RawMessage, error) {
	return s.postWith(ctx, method, name, params, s.serverRequest)
}

// postWith is post, with what the server sends on the answer's stream
// before the answer handed to onStream.
func (s *Conn) postWith(ctx context.Context, method, name string, params json.RawMessage, onStream func(context.Context, *jsonrpc.Request) error) (json.RawMessage, error) {
	id := s.wire.tap.Side.NextID()
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id, Method: method, Params: params})
	if err != nil {
		return nil, err
	}
	resp, err := s.send(ctx, data, method, name)
	if he := (*transport.HTTPError)(nil); errors.As(err, &he) && he.RPC() == nil && he.Status() == http.StatusNotFound && s.httpSession() != "" {
		return nil, &fail.Error{Code: fail.TaskGone, Err: err, Hint: "tasks live only as long as the session that started them; start the call again",
			Msg: fmt.Sprintf("%s no longer knows the session that holds the task (HTTP 404)", s.Label)}
	}
	if err != nil {
		// Explained by the caller, which knows what it was doing.
		return nil, err
	}
	defer resp.Body.Close()
	return transport.ReadAnswer(ctx, resp, id, transport.AnswerOptions{
		Label: s.Label, MaxMessage: int(s.maxMessage), Request: onStream,
		OverLimit: s.wire.tap.OverLimit, // the session explains it (limitFailure)
	})
}

// send POSTs one JSON-RPC message of mcpc's own: routed by method and
// name on a 2026-07-28 server.
func (s *Conn) send(ctx context.Context, data []byte, method, name string) (*http.Response, error) {
	h := transport.Own{Protocol: s.ProtocolVersion(), SessionID: s.httpSession()}
	if s.modern() {
		h.Method, h.Name = method, name
	}
	return s.http.PostOwn(ctx, s.Entry.Server.URL, data, h)
}

// httpSession is the 2025 session the requests belong to: the SDK's, or
// the one remembered with a detached task.
func (s *Conn) httpSession() string {
	if s.CS != nil {
		return s.CS.ID()
	}
	return s.resumed.sessionID
}

// serverRequest handles what a 2025 server sends on the stream of one of
// mcpc's requests: progress goes to the progress line, an elicitation is
// answered like any other (flags, terminal, or declined), anything else
// mcpc did not offer is refused.
func (s *Conn) serverRequest(ctx context.Context, m *jsonrpc.Request) error {
	if !m.ID.IsValid() {
		if m.Method == "notifications/progress" && s.opts.Progress != nil {
			var p mcp.ProgressNotificationParams
			if json.Unmarshal(m.Params, &p) == nil {
				s.opts.Progress(&p)
			}
		}
		return nil
	}
	resp := &jsonrpc.Response{ID: m.ID}
	switch {
	case m.Method == "elicitation/create" && s.opts.Input.OffersElicitation():
		var p mcp.ElicitParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
			break
		}
		res, err := s.input.HandleElicit(ctx, &mcp.ElicitRequest{Params: &p})
		if err != nil {
			return err
		}
		if err := s.input.FailedNow(); err != nil {
			// The answer could not be given: the server hears "cancel",
			// and mcpc reports why.
			s.respond(ctx, &jsonrpc.Response{ID: m.ID, Result: json.RawMessage(`{"action":"cancel"}`)})
			return err
		}
		resp.Result, _ = json.Marshal(res)
	default:
		s.input.Note(fmt.Sprintf("%s asked for %s, which mcpc does not offer: refused", s.Label, m.Method))
		resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "mcpc does not offer " + m.Method}
	}
	return s.respond(ctx, resp)
}

// respond POSTs mcpc's answer to a server's request.
func (s *Conn) respond(ctx context.Context, resp *jsonrpc.Response) error {
	return s.http.Answer(ctx, s.Entry.Server.URL, resp, transport.Own{Protocol: s.ProtocolVersion(), SessionID: s.httpSession()}, s.Label)
}
