package conn

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/transport"
)

// EventsExtension is the events extension (the draft of
// modelcontextprotocol/experimental-ext-triggers-events), as a server
// declares it among its extensions; its draft shows a top-level
// capabilities.events too, which is accepted alike.
const EventsExtension = "io.modelcontextprotocol/events"

// OffersEvents says whether the server declared the events extension.
func (s *Conn) OffersEvents() bool {
	t := taskConn{s}
	if t.Extension(EventsExtension).Exists() {
		return true
	}
	return s.capability("events").Exists()
}

// ListEvents sends events/list (one page: the draft's lists are short).
func (s *Conn) ListEvents(ctx context.Context) (json.RawMessage, error) {
	raw, err := taskConn{s}.Request(ctx, "events/list", "", nil)
	if err != nil {
		return nil, s.explain(ctx, "list the event types of", err)
	}
	return raw, nil
}

// PollEvents sends events/poll for the event type name from cursor (nil:
// from now), at most max events (0: the server's default).
func (s *Conn) PollEvents(ctx context.Context, name string, cursor *string, max int) (json.RawMessage, error) {
	p := map[string]any{"name": name, "arguments": map[string]any{}, "cursor": cursor}
	if max > 0 {
		p["maxEvents"] = max
	}
	raw, err := taskConn{s}.Request(ctx, "events/poll", "", p)
	if err != nil {
		return nil, s.explain(ctx, "poll the events "+name+" of", err)
	}
	return raw, nil
}

// CanStream says whether events/stream (push delivery) can be followed
// on this connection: directly, on stdio or HTTP. A session's holder
// relays requests under ids of its own, which the stream's notifications
// would name, so a watch through a session polls.
func (s *Conn) CanStream() bool { return s.sock == nil }

// StreamEvents follows the push stream of the event type name
// (events/stream) from cursor (nil: from now), handing each of its
// notifications (notifications/events/*) to frame in order, until the
// server ends it (nil), ctx ends (ctx's cause, as it is: the watch's
// liveness check ends a silent stream so), or it fails. On HTTP the
// stream is the POST's event stream, aborted to end it; on stdio the
// notifications come beside the SDK's, routed by their subscription id,
// and ending it sends notifications/cancelled. frame must not wait on
// the connection.
func (s *Conn) StreamEvents(ctx context.Context, name string, cursor *string, frame func(method string, params json.RawMessage)) error {
	params, err := s.ownParams(map[string]any{"name": name, "arguments": map[string]any{}, "cursor": cursor})
	if err != nil {
		return err
	}
	if s.http != nil {
		_, err = s.postWith(ctx, "events/stream", "", params, func(ctx context.Context, m *jsonrpc.Request) error {
			if !m.ID.IsValid() && strings.HasPrefix(m.Method, transport.EventsNotification) {
				frame(m.Method, m.Params)
				return nil
			}
			return s.serverRequest(ctx, m) // progress, a question: as on any of mcpc's own requests
		})
	} else {
		// Side.Stream hands over only the notifications that name the stream.
		_, err = s.wire.tap.Side.Stream(ctx, "events/stream", params, func(m *jsonrpc.Request) { frame(m.Method, m.Params) })
	}
	if err == nil || ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return s.explain(ctx, "follow the events "+name+" of", err)
}
