package hold

import (
	"context"
	"encoding/json"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/transport"
)

// attach is one invocation's connection.
type attach struct {
	conn net.Conn
	out  chan jsonrpc.Message
	done chan struct{}
	once sync.Once
	ids  map[string]string // the invocation's ids (IDKey) to the holder's
	// queued counts messages sent and not yet written (see flush).
	queued atomic.Int64
	// notes counts the droppable notifications queued; dropped those
	// dropped since the last note of it (drop.go).
	notes   atomic.Int64
	dropped dropCount
}

// maxAttached bounds the invocations attached at once: each holds
// goroutines and buffers. A connection takes a slot once it has spoken
// (sent its first byte): one past it waits for a slot (its connect
// timeout bounds the wait), rather than growing the holder without bound.
const maxAttached = 256

// firstMessageWait is how long a connection may stay silent before its
// first byte, and then take to send its first message once it has a
// slot: an invocation sends its handshake at once, and one that sends
// nothing must hold nothing for long.
const firstMessageWait = 2 * time.Second

// attachQueue bounds what waits to be written to one invocation: one
// that stops reading is dropped, not buffered for. Log messages and
// progress take at most attachNotes of it (drop.go).
const attachQueue = 1024

// attachWriteWait bounds how long a write to an invocation may make no
// progress: one that reads nothing for that long is let go.
const attachWriteWait = 30 * time.Second

func (a *attach) close() {
	a.once.Do(func() {
		close(a.done)
		a.conn.Close()
	})
}

// flush waits up to d for what was sent to be written: the answer to a
// stop request reaches its invocation before the holder lets go.
func (a *attach) flush(d time.Duration) {
	for deadline := time.Now().Add(d); a.queued.Load() > 0 && time.Now().Before(deadline); {
		select {
		case <-a.done:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (a *attach) writeLoop() {
	for {
		select {
		case msg := <-a.out:
			err := a.write(msg)
			if droppable(msg) {
				a.notes.Add(-1)
			}
			if err == nil && len(a.out) == 0 {
				// All written: what was dropped since is told now.
				if note := a.dropped.take(); note != nil {
					err = a.write(note)
				}
			}
			a.queued.Add(-1)
			if err != nil {
				a.close()
				return
			}
		case <-a.done:
			return
		}
	}
}

// write writes msg to the invocation, within attachWriteWait of progress
// for each part: a large answer to a slow reader is not cut off.
func (a *attach) write(msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	for p := append(data, '\n'); len(p) > 0; {
		a.conn.SetWriteDeadline(time.Now().Add(attachWriteWait))
		n, err := a.conn.Write(p[:min(len(p), 64<<10)])
		if err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

// serveConn reads one invocation's messages until it goes away.
func (h *Holder) serveConn(c net.Conn) {
	a := &attach{conn: c, out: make(chan jsonrpc.Message, attachQueue), done: make(chan struct{}), ids: map[string]string{}}
	h.mu.Lock()
	h.conns[a] = true
	h.mu.Unlock()
	go a.writeLoop()
	r := transport.NewMessageReader(c, int(h.s.MaxMessage()))
	c.SetReadDeadline(time.Now().Add(h.firstWait))
	for first := true; ; first = false {
		msgs, err := r.Read()
		if err != nil {
			break
		}
		if first {
			c.SetReadDeadline(time.Time{}) // then it may wait as long as it likes
		}
		for _, m := range msgs {
			h.fromInvocation(a, m)
		}
	}
	a.close()
	h.detach(a)
}

// detach forgets a gone invocation: its requests are cancelled on the
// server, the server's questions to it answered with an error.
func (h *Holder) detach(a *attach) {
	h.mu.Lock()
	delete(h.conns, a)
	var cancel []string
	var relays []context.CancelFunc
	for _, hid := range a.ids {
		if r := h.calls[hid]; r != nil {
			cancel = append(cancel, hid)
			relays = append(relays, r.cancel)
			h.forget(hid, r)
		}
	}
	for id, owner := range h.tasks {
		if owner == a {
			delete(h.tasks, id)
		}
	}
	var unanswered []jsonrpc.ID
	for key, q := range h.asked {
		if q.a == a {
			unanswered = append(unanswered, q.id)
			delete(h.asked, key)
		}
	}
	h.mu.Unlock()
	ctx := context.Background()
	for i, hid := range cancel {
		if !h.streamCancels() {
			params, _ := json.Marshal(map[string]any{"requestId": hid, "reason": "the invocation went away"})
			h.send(ctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: params})
		}
		if relays[i] != nil {
			relays[i]()
		}
	}
	for _, id := range unanswered {
		h.send(ctx, &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the invocation asked went away"}})
	}
	// Its requests ended now: the idle bound counts from here. An
	// invocation that had none in flight (a status probe, a connection
	// that sent nothing) is no use of the server and does not keep the
	// session from idling out.
	if len(cancel) > 0 {
		h.touch()
	}
}
