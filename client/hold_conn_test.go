package client

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/transport"
)

// servedHolder is a holder without a server serving a socket of its own
// until the test ends.
func servedHolder(t *testing.T, slots int, wait time.Duration) (*Holder, string) {
	t.Helper()
	h := routedHolder()
	h.maxAttached, h.firstWait = slots, wait
	h.s = &Session{maxMessage: 1 << 20}
	path := filepath.Join(t.TempDir(), "h.sock")
	ln, err := transport.ListenSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.Serve(ctx, ln, 0)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		ln.Close()
		h.Close()
	})
	return h, path
}

func dialHolder(t *testing.T, path string) net.Conn {
	t.Helper()
	c, err := transport.DialUnix(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A connection that never sends its first message is let go: it does
// not hold a slot (and its goroutines and buffers) for good.
func TestHolderDropsSilentConnection(t *testing.T) {
	_, path := servedHolder(t, maxAttached, 50*time.Millisecond)
	c := dialHolder(t, path)
	c.SetReadDeadline(time.Now().Add(60 * time.Second)) // a hang guard
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the silent connection was not closed by the holder: %v", err)
	}
}

// At most maxAttached invocations are attached at once; the next waits
// for a slot (the socket's backlog), and gets one when one leaves.
func TestHolderBoundsAttached(t *testing.T) {
	h, path := servedHolder(t, 4, firstMessageWait)
	var conns []net.Conn
	for range 12 {
		conns = append(conns, dialHolder(t, path))
	}
	waitAttached(t, h, 4)
	time.Sleep(100 * time.Millisecond) // room for a wrongly accepted fifth
	if n := len(h.attached()); n != 4 {
		t.Fatalf("%d invocations attached, want at most 4", n)
	}
	// The fifth is answered once one of the four leaves.
	conns[0].Close()
	c := conns[4]
	c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + HolderStatus + `","params":{}}` + "\n"))
	c.SetReadDeadline(time.Now().Add(60 * time.Second)) // a hang guard
	msgs, err := transport.NewMessageReader(c, 1<<20).Read()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("the fifth invocation got %v, %v", msgs, err)
	}
}

// waitAttached waits (with a generous hang guard) for n attached.
func waitAttached(t *testing.T, h *Holder, n int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); len(h.attached()) != n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d invocations attached, want %d", len(h.attached()), n)
		}
	}
}

// Closing the holder waits at most a second in all for what its
// invocations were sent to be written, not a second for each: a holder
// told to end (SIGTERM, stop) with many invocations that stopped reading
// lets its server go within that second.
func TestHolderCloseBounded(t *testing.T) {
	var as []*attach
	for range 8 {
		a := newAttach()
		a.conn, _ = net.Pipe()
		a.queued.Store(1) // a message no one will write
		as = append(as, a)
	}
	h := routedHolder(as...)
	done := make(chan time.Duration)
	go func() {
		start := time.Now()
		h.Close()
		done <- time.Since(start)
	}()
	select {
	case d := <-done:
		// A second for all of them, not one for each (8s).
		if d > 4*time.Second {
			t.Fatalf("Close took %v with 8 invocations that do not read", d)
		}
	case <-time.After(60 * time.Second): // a hang guard
		t.Fatal("Close did not return")
	}
}
