package conn

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// heldSession is an invocation's connection as it is when held: what
// explain reads of it is the label, the entry and that it has a socket.
func heldSession() *Conn {
	return &Conn{Label: `server "a"`, Entry: &config.Entry{Name: "a", Server: &config.Server{}}, wire: newWire(), sock: &transport.Socket{}}
}

func mustID(s string) jsonrpc.ID {
	id, err := jsonrpc.MakeID(s)
	if err != nil {
		panic(err)
	}
	return id
}

// TestHeldVerdictCrossesTheSocket: the holder's verdict, encoded as it
// is sent and decoded as the invocation reads it, is the same failure.
func TestHeldVerdictCrossesTheSocket(t *testing.T) {
	want := &fail.Error{Code: fail.AuthFailed, Msg: `server "a" rejected the credentials that were sent (HTTP 401)`,
		Hint: "check that the token is current and meant for this server"}
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: mustID("h-1"), Error: holdwire.VerdictError(want)})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		t.Fatal(err)
	}
	got := fail.As(heldSession().explain(context.Background(), "call tool \"x\" on", msg.(*jsonrpc.Response).Error))
	if got == nil || got.Code != want.Code || got.Msg != want.Msg || got.Hint != want.Hint {
		t.Fatalf("through the socket: %#v, want %#v", got, want)
	}
	// A one-shot's session has no holder to speak for it: the same error
	// from a server is the server's rejection.
	s := heldSession()
	s.sock = nil
	if f := fail.As(s.explain(context.Background(), "call tool \"x\" on", msg.(*jsonrpc.Response).Error)); f == nil || f.Code != fail.Rejected {
		t.Fatalf("without a holder: %#v", f)
	}
}
