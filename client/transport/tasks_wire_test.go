package transport

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// mcpc's own requests get their answers; the SDK never sees them; a lost
// connection ends the wait.
func TestSideChannelClaimsOwnAnswers(t *testing.T) {
	var tw SideChannel
	sent := make(chan *jsonrpc.Request, 1)
	tw.setWriter(func(_ context.Context, m jsonrpc.Message) error {
		sent <- m.(*jsonrpc.Request)
		return nil
	})
	go func() {
		req := <-sent
		sdk, _ := jsonrpc.MakeID(float64(3))
		if tw.claim(&jsonrpc.Response{ID: sdk, Result: json.RawMessage(`{}`)}) {
			t.Error("claimed an SDK response")
		}
		tw.claim(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"taskId":"t"}`)})
	}()
	res, err := tw.Call(context.Background(), "tasks/get", json.RawMessage(`{"taskId":"t"}`))
	if err != nil || string(res) != `{"taskId":"t"}` {
		t.Fatalf("call = %s, %v", res, err)
	}
	go func() { <-sent; tw.lost() }()
	if _, err := tw.Call(context.Background(), "tasks/get", nil); !errors.Is(err, errConnectionLost) {
		t.Fatalf("after the connection was lost: %v", err)
	}
}
