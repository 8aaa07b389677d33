package conn

import (
	"context"
	"errors"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// watchPushed hands the list changes and resource updates the SDK
// receives to pushed (ConnectOptions.Pushed).
func watchPushed(opts *mcp.ClientOptions, pushed func(kind, name string)) {
	opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { pushed("list", "tools") }
	opts.PromptListChangedHandler = func(context.Context, *mcp.PromptListChangedRequest) { pushed("list", "prompts") }
	opts.ResourceListChangedHandler = func(context.Context, *mcp.ResourceListChangedRequest) { pushed("list", "resources") }
	opts.ResourceUpdatedHandler = func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
		if r.Params != nil {
			pushed("resource", r.Params.URI)
		}
	}
}

// Subscribe asks the server to tell of uri's updates: resources/subscribe
// (on 2026-07-28, a subscriptions/listen stream the SDK opens for it).
func (s *Conn) Subscribe(ctx context.Context, uri string) error {
	if err := s.CS.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		return s.explain(ctx, "subscribe to "+uri+" of", err)
	}
	return nil
}

// Unsubscribe tells the server a Subscribe's updates are no longer
// wanted: resources/unsubscribe (on 2026-07-28, the end of its stream).
func (s *Conn) Unsubscribe(ctx context.Context, uri string) error {
	if err := s.CS.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		return s.explain(ctx, "unsubscribe from "+uri+" of", err)
	}
	return nil
}

// Gone waits until the connection ends and says why: the server exited,
// broke the protocol, or went away. nil when ctx ended first.
func (s *Conn) Gone(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- s.CS.Wait() }()
	var err error
	select {
	case <-ctx.Done():
		return nil
	case err = <-done:
	}
	if ctx.Err() != nil {
		return nil
	}
	if err == nil || errors.Is(err, mcp.ErrConnectionClosed) {
		err = io.ErrUnexpectedEOF
	}
	return s.explain(ctx, "keep watching", err)
}
