package transport

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// SubscriptionMeta is the _meta key by which the events extension's
// push notifications (notifications/events/*) name the events/stream
// request they belong to: its JSON-RPC id (SEP-2575's correlation
// convention), so that streams sharing one stdout can be told apart.
const SubscriptionMeta = "io.modelcontextprotocol/subscriptionId"

// EventsNotification is the prefix of the methods a push stream carries.
const EventsNotification = "notifications/events/"

// subscriptionPath is SubscriptionMeta within a notification's params, as
// a gjson path (its dot escaped; a constant: nothing is made at init).
const subscriptionPath = `_meta.io\.modelcontextprotocol/subscriptionId`

// cancelWait bounds the write of notifications/cancelled when a stream
// ends: a server that stopped reading does not hold the watch.
const cancelWait = time.Second

// Stream sends a long-lived request over the stdio connection (the
// events extension's events/stream) and hands each notification that
// names it in _meta[SubscriptionMeta] to frame, on the connection's
// reader (frame must not wait on the connection), until its answer
// comes (returned), the connection ends, or ctx does: then it tells the
// server with notifications/cancelled, as the draft asks on stdio, where
// there is no request stream to abort.
func (t *SideChannel) Stream(ctx context.Context, method string, params json.RawMessage, frame func(*jsonrpc.Request)) (json.RawMessage, error) {
	res, err := t.call(ctx, method, params, frame)
	if ctx.Err() != nil {
		t.cancelStream(res.id)
	}
	return res.result, err
}

// cancelStream sends notifications/cancelled for the stream id.
func (t *SideChannel) cancelStream(id jsonrpc.ID) {
	if !id.IsValid() {
		return
	}
	params, _ := json.Marshal(map[string]any{"requestId": id.Raw(), "reason": "mcpc stopped following the stream"})
	ctx, cancel := context.WithTimeout(context.Background(), cancelWait)
	defer cancel()
	t.Send(ctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: params})
}

// claimStream takes a push notification off the connection for the
// stream it names: one of mcpc's own (OwnID), handed to its frame, or
// dropped when that stream has ended (the server may send a few more
// before it reads the cancellation). false for any other message.
func (t *SideChannel) claimStream(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.ID.IsValid() || !strings.HasPrefix(req.Method, EventsNotification) {
		return false
	}
	sub := rawmsg.View(req.Params).Get(subscriptionPath)
	if sub.Type != gjson.String || !strings.HasPrefix(sub.Str, ownIDPrefix) {
		return false
	}
	t.mu.Lock()
	frame := t.streams[sub.Str]
	t.mu.Unlock()
	if frame != nil {
		frame(req)
	}
	return true
}
