//lint:file-ignore SA1019 logging, sampling and roots are deprecated in 2026-07-28, yet 2025 servers use them: mcpc shows the logs and refuses the rest

package conn

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/input"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// newClient makes the SDK client for this connection, declaring what
// clientCapabilities says and handling what it offers. The 2026-07-28
// input_required loop is mcpc's own (see input.State.Rounds), so the SDK's is off.
func (s *Conn) newClient(o ConnectOptions) *mcp.Client {
	s.input = s.newInput(o.Input)
	opts := &mcp.ClientOptions{
		Capabilities:   clientCapabilities(o.Input),
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}
	if o.Input.OffersElicitation() {
		opts.ElicitationHandler = s.input.HandleElicit
		opts.ElicitationCompleteHandler = s.input.Complete
	}
	if in := o.Input; in != nil && in.Log != nil {
		opts.LoggingMessageHandler = func(_ context.Context, req *mcp.LoggingMessageRequest) { s.input.ShowLog(req.Params) }
	}
	if o.Progress != nil {
		opts.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			o.Progress(r.Params)
		}
	}
	if o.Pushed != nil {
		watchPushed(opts, o.Pushed)
	}
	// On stdio the wire hands these two to the same handlers undecoded by
	// the SDK (wire.Skip).
	s.wire.deliver = func(method string, params []byte) bool {
		switch {
		case method == "notifications/progress" && o.Progress != nil:
			p, ok := rawmsg.Progress(params)
			if !ok {
				return false // the SDK says what is wrong with it
			}
			o.Progress(p)
		case method == "notifications/message" && opts.LoggingMessageHandler != nil:
			if input.LevelRank(rawmsg.View(params).Get("level").String()) < input.LevelRank(s.input.Level()) {
				return true
			}
			p, ok := rawmsg.Log(params)
			if !ok {
				return false // the SDK says what is wrong with it
			}
			s.input.ShowLog(p)
		case method == holdwire.Dropped && s.sock != nil:
			n := holdwire.DroppedShown(params, func(lv string) bool { return input.LevelRank(lv) >= input.LevelRank(s.input.Level()) }, o.Progress != nil)
			if n > 0 && o.Lost != nil {
				o.Lost(n)
			} else if n > 0 {
				s.input.Note(fmt.Sprintf("session %s dropped %d of the server's notifications to this invocation: it read them more slowly than the server sent them", s.opts.Held.Name, n))
			}
		}
		return true // a notification nothing would show
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "mcpc", Version: o.Version}, opts)
	c.AddReceivingMiddleware(s.input.RefuseUnoffered)
	c.AddSendingMiddleware(s.idleBound)
	c.AddSendingMiddleware(progressToken, s.input.Rounds)
	return c
}

// afterConnect asks a 2025 server that logs to send what --log-level
// wants. (2026-07-28 servers get the level with each request instead.)
func (s *Conn) afterConnect(ctx context.Context) {
	r := s.CS.InitializeResult()
	if r == nil || s.modern() || r.Capabilities == nil || r.Capabilities.Logging == nil ||
		s.input.In == nil || s.input.In.Log == nil {
		return
	}
	// A server that refuses still gets its messages filtered locally.
	_ = s.CS.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(s.input.Level())})
}

// newInput is the input rounds' state for a connection answering with in.
func (s *Conn) newInput(in *input.Input) *input.State {
	return &input.State{In: in, Label: s.Label, Modern: s.modern,
		Verified: func() { s.verified = true },
		Pause:    func() func() { return s.idle.Pause() }}
}

func (s *Conn) modern() bool { return s.ProtocolVersion() >= "2026-07-28" }
