package hold

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/transport"
)

// While a request runs past the idle bound, the holder's idle loop sleeps
// until the request ends (no wake-ups to look again), and the bound then
// counts from the answer: the session idles out once, after it.
func TestHolderIdleWaitsForTheCall(t *testing.T) {
	const idle = 20 * time.Millisecond
	a := newAttach()
	h := routedHolder(a)
	h.s = &fakeUpstream{max: 1 << 20}
	h.stop, h.lostC = make(chan struct{}), make(chan struct{})
	h.gone = h.lostC
	h.last = time.Now()
	h.mu.Lock()
	inFlight(h, a, "h-1", "c-1")
	h.mu.Unlock()
	ln, err := transport.ListenSocket(filepath.Join(t.TempDir(), "h.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type ended struct{ idled bool }
	done := make(chan ended, 1)
	go func() {
		_, idled := h.Serve(context.Background(), ln, idle)
		done <- ended{idled}
	}()
	// The call runs for 25 idle bounds.
	time.Sleep(25 * idle)
	select {
	case <-done:
		t.Fatal("the session idled out while a request was in flight")
	default:
	}
	wakes := h.wakes.Load()
	h.mu.Lock()
	h.forget("h-1", h.calls["h-1"])
	h.mu.Unlock()
	select {
	case e := <-done:
		if !e.idled {
			t.Fatal("the session ended, not idled out")
		}
	case <-time.After(60 * time.Second): // a hang guard
		t.Fatal("the session did not idle out once its request ended")
	}
	// One wake-up at the bound, to find the call in flight; none after
	// until it ends.
	if wakes > 2 {
		t.Fatalf("the idle loop woke %d times while a request ran for 25 idle bounds", wakes)
	}
}

// An invocation's handshake, though the holder answers it itself, is a
// use of the session: the idle bound counts from it, not from the last
// request passed on, so an idle bound that ran out while no invocation
// was attached does not end the session under one that just arrived.
func TestHolderHandshakeCountsAsUse(t *testing.T) {
	for _, method := range []string{"initialize", "server/discover"} {
		a := newAttach()
		h := routedHolder(a)
		h.init, h.discover = json.RawMessage(`{}`), json.RawMessage(`{}`)
		long := time.Now().Add(-time.Hour)
		h.last = long
		h.invocationRequest(a, &jsonrpc.Request{ID: mustID("c-1"), Method: method, Params: json.RawMessage(`{}`)})
		if !h.last.After(long) {
			t.Errorf("%s: the idle bound still counts from an hour ago", method)
		}
	}
}
