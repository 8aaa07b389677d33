package hold

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/transport"
)

// servedHolder is a holder without a server serving a socket of its own
// until the test ends.
func servedHolder(t *testing.T, slots int, wait time.Duration, configure ...func(*Holder)) (*Holder, string) {
	t.Helper()
	h := routedHolder()
	h.maxAttached, h.firstWait = slots, wait
	for _, f := range configure {
		f(h)
	}
	h.s = &fakeUpstream{max: 1 << 20}
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

// At most maxAttached invocations are attached at once; the next that
// speaks waits for a slot, and gets one when one leaves.
func TestHolderBoundsAttached(t *testing.T) {
	h, path := servedHolder(t, 4, firstMessageWait)
	var conns []net.Conn
	for range 4 {
		c := dialHolder(t, path)
		askStatus(t, c)
		conns = append(conns, c)
	}
	c := dialHolder(t, path)
	writeStatus(c)
	time.Sleep(100 * time.Millisecond) // room for a wrongly attached fifth
	if n := len(h.attached()); n != 4 {
		t.Fatalf("%d invocations attached, want at most 4", n)
	}
	// The fifth is answered once one of the four leaves.
	conns[0].Close()
	readAnswer(t, c)
}

// Connections that send nothing take no slot: with every slot's worth of
// them open (and their bound far off), an invocation is served at once.
func TestHolderSilentTakesNoSlot(t *testing.T) {
	h, path := servedHolder(t, 4, time.Hour)
	for range 12 {
		dialHolder(t, path)
	}
	askStatus(t, dialHolder(t, path))
	if n := len(h.attached()); n != 1 {
		t.Fatalf("%d attached, want only the one that spoke", n)
	}
}

// At most maxSilent connections wait to speak: past it the oldest is let
// go (closed), and a new invocation is still served.
func TestHolderBoundsSilent(t *testing.T) {
	_, path := servedHolder(t, 4, time.Hour, func(h *Holder) { h.maxSilent = 3 })
	var conns []net.Conn
	for range 8 {
		conns = append(conns, dialHolder(t, path))
	}
	for i, c := range conns[:5] {
		c.SetReadDeadline(time.Now().Add(60 * time.Second)) // a hang guard
		if _, err := c.Read(make([]byte, 1)); err != io.EOF {
			t.Fatalf("silent connection %d of 8 (bound 3) was not let go: %v", i, err)
		}
	}
	askStatus(t, dialHolder(t, path))
}

// silentNow is how many connections wait to speak.
func (h *Holder) silentNow() int {
	s := h.silent.Load()
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.quiet.Len()
}

// A connection that has spoken but not sent its whole first message
// within firstWait of getting its slot is let go, and its slot with it.
func TestHolderDropsSlowFirstMessage(t *testing.T) {
	_, path := servedHolder(t, 1, 50*time.Millisecond)
	c := dialHolder(t, path)
	c.Write([]byte(`{"jsonrpc":`))
	c.SetReadDeadline(time.Now().Add(60 * time.Second)) // a hang guard
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the half-sent first message was waited for: %v", err)
	}
	askStatus(t, dialHolder(t, path))
}

// A silent connection costs the holder a goroutine and a descriptor, not
// an invocation's buffers (64 KiB to read, a queue to write: ~90 KiB in
// all, which each of the first 256 held for 30s before).
func TestHolderSilentMemory(t *testing.T) {
	const n = 200
	h, path := servedHolder(t, maxAttached, time.Hour)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		dialHolder(t, path)
	}
	for deadline := time.Now().Add(30 * time.Second); h.silentNow() < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d connections taken", h.silentNow(), n)
		}
	}
	runtime.ReadMemStats(&after)
	// Both ends of each connection are in this process: the dialler's
	// share counts against the bound too.
	per := (after.TotalAlloc - before.TotalAlloc + after.StackInuse - before.StackInuse) / n
	t.Logf("%d bytes per silent connection", per)
	if per > 16<<10 {
		t.Fatalf("a silent connection costs %d bytes, want at most 16 KiB", per)
	}
}

func writeStatus(c net.Conn) {
	c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + holdwire.Status + `","params":{}}` + "\n"))
}

// askStatus asks the holder its status on c and reads the answer.
func askStatus(t *testing.T, c net.Conn) {
	t.Helper()
	writeStatus(c)
	readAnswer(t, c)
}

func readAnswer(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(60 * time.Second)) // a hang guard
	msgs, err := transport.NewMessageReader(c, 1<<20).Read()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("the invocation got %v, %v", msgs, err)
	}
	c.SetReadDeadline(time.Time{})
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
