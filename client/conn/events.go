package conn

import (
	"context"
	"encoding/json"
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
