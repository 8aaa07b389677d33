package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/redact"
)

// Stdio serves u to one client over in and out (newline-delimited
// JSON-RPC, the stdio transport) until in ends, ctx ends or the held
// server goes away. The client's first message says its era: initialize
// is a 2025 client's, server/discover (or a request whose _meta names
// 2026-07-28) a stateless one's.
func Stdio(ctx context.Context, u Backend, in io.ReadCloser, out io.Writer, secrets *redact.Set, idle *Idle) error {
	// The client's messages are read apart: a read of stdin is not let go
	// by closing it, and serve must end on a signal whatever the client
	// does.
	msgs, rerr := make(chan []jsonrpc.Message), make(chan error, 1)
	done := make(chan struct{})
	defer close(done)
	go func() {
		r := transport.NewMessageReader(in, int(u.MaxMessage()))
		for {
			m, err := r.Read()
			if err != nil {
				rerr <- err
				return
			}
			idle.Touch()
			select {
			case msgs <- m:
			case <-done:
				return
			}
		}
	}()
	next := func() ([]jsonrpc.Message, error) {
		select {
		case m := <-msgs:
			return m, nil
		case err := <-rerr:
			return nil, clientEnded(ctx, err)
		case <-ctx.Done():
			return nil, nil
		}
	}
	first, err := next()
	if first == nil {
		return err
	}
	w := &downstream{w: out, secrets: secrets, pending: map[string]jsonrpc.ID{}, answered: make(chan struct{}, 1)}
	link, first, err := openFor(ctx, u, w, first, next)
	if link == nil {
		return err
	}
	defer link.Close()
	ended := make(chan error, 1)
	go func() { ended <- w.copyFrom(link) }()
	for batch := first; ; {
		for _, m := range batch {
			w.sent(m)
			if err := link.Send(m); err != nil {
				return w.ended(upstreamEnded(u, <-ended))
			}
		}
		select {
		case err := <-ended:
			return w.ended(upstreamEnded(u, err))
		case err := <-rerr:
			if _, ok := u.(answersItself); ok && errors.Is(err, io.EOF) {
				w.drain(ended)
			}
			return clientEnded(ctx, err)
		case <-ctx.Done():
			return nil
		case batch = <-msgs:
		}
	}
}

// answersItself is a Backend that holds no server (Mock, Replay): a
// client that writes its requests and closes its stdin (printf … | mcpc
// mock) is still answered them, as a server would answer what it read.
type answersItself interface{ answersItself() }

// drainTime bounds how long Stdio waits, once its client's input ended,
// for the answers a Backend that answers itself still owes: a recorded
// request that was never answered is not answered now either.
const drainTime = 2 * time.Second

// drain waits until every request the client sent is answered, the
// line ends, or drainTime passes.
func (d *downstream) drain(ended <-chan error) {
	t := time.NewTimer(drainTime)
	defer t.Stop()
	for {
		d.mu.Lock()
		n := len(d.pending)
		d.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-d.answered:
		case <-ended:
			return
		case <-t.C:
			return
		}
	}
}

// openFor opens the client's line in the era its first messages say. A
// 2026-07-28 client's probe of a server that speaks 2025 only is
// answered "not found", as the server itself would answer it, and the
// client's next messages say the era again (it goes on with initialize).
// A nil line ends Stdio with err.
func openFor(ctx context.Context, u Backend, w *downstream, first []jsonrpc.Message, next func() ([]jsonrpc.Message, error)) (Line, []jsonrpc.Message, error) {
	for {
		link, err := u.Open(ctx, eraOfFirst(first))
		if err == nil {
			return link, first, nil
		}
		if !probes(first) {
			// The client hears why before serve ends: the era it speaks
			// may be one the server does not.
			w.failAll(first, err)
			return nil, nil, err
		}
		for _, m := range first {
			if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
				w.write(&jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
					Message: "method not found: " + u.Label() + " speaks a 2025 revision (initialize)"}})
			}
		}
		if first, err = next(); first == nil {
			return nil, nil, err
		}
	}
}

// probes says msgs are a 2026-07-28 client's probe: server/discover alone.
func probes(msgs []jsonrpc.Message) bool {
	r, ok := msgs[0].(*jsonrpc.Request)
	return len(msgs) == 1 && ok && r.Method == "server/discover"
}

// eraOfFirst is the era a client's first message (or batch) says.
func eraOfFirst(msgs []jsonrpc.Message) Era {
	for _, m := range msgs {
		r, ok := m.(*jsonrpc.Request)
		if !ok {
			continue
		}
		switch r.Method {
		case "initialize":
			return Legacy
		case "server/discover":
			return Modern
		}
		if v := rawmsg.View(r.Params).Get("_meta." + gjson.Escape("io.modelcontextprotocol/protocolVersion")); v.Type == gjson.String {
			return EraOf(v.Str)
		}
	}
	return Legacy
}

// clientEnded is Stdio's end when the client's side ended: its stdin
// closed (no error), ctx ended, or a message it sent that cannot be read.
func clientEnded(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return nil
	case errors.Is(err, io.EOF):
		return nil
	}
	// The reader's words are a server's ("the server wrote …"): here
	// the writer is the client.
	if errors.Is(err, transport.ErrTooLarge) {
		return &fail.Error{Code: fail.TooLarge, Err: err, Hint: "raise serve's --max-message SIZE, or have the host send less at once",
			Msg: "the client sent a message over serve's --max-message; serve ended"}
	}
	return &fail.Error{Code: fail.Protocol, Err: err, Hint: "the MCP host must write one JSON-RPC message a line on serve's stdin",
		Msg: "the client sent what is not a JSON-RPC message; serve ended"}
}

// upstreamEnded is Stdio's end when the held server's side ended.
func upstreamEnded(u Backend, err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		return fail.New(fail.Connection, "", "%s went away: its holder closed the connection", u.Label())
	}
	return fail.Wrap(fail.Connection, err, "", "%s went away", u.Label())
}

// downstream writes messages to a client, one JSON text a line, with
// the invocation's secrets (the upstream's credentials, headers and
// environment) replaced: no message serve passes on carries them.
type downstream struct {
	mu      sync.Mutex
	w       io.Writer
	secrets *redact.Set
	pending map[string]jsonrpc.ID // the client's requests not answered yet
	// answered is told (without waiting) of each answer written: drain
	// counts what is left.
	answered chan struct{}
}

// sent notes m, on its way to the server: a request awaits its answer.
func (d *downstream) sent(m jsonrpc.Message) {
	if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
		d.mu.Lock()
		d.pending[transport.IDKey(r.ID)] = r.ID
		d.mu.Unlock()
	}
}

// ended answers every request still waiting with err, the reason the
// server went away, so the client is not left waiting; it returns err.
func (d *downstream) ended(err error) error {
	d.mu.Lock()
	ids := make([]jsonrpc.ID, 0, len(d.pending))
	for _, id := range d.pending {
		ids = append(ids, id)
	}
	d.mu.Unlock()
	for _, id := range ids {
		d.write(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}})
	}
	return err
}

// failAll answers each request of msgs with err.
func (d *downstream) failAll(msgs []jsonrpc.Message, err error) {
	for _, m := range msgs {
		d.sent(m)
	}
	d.ended(err)
}

// copyFrom writes what comes on l until it ends.
func (d *downstream) copyFrom(l Line) error {
	for {
		m, err := l.Receive()
		if err != nil {
			return err
		}
		if err := d.write(m); err != nil {
			return err
		}
	}
}

func (d *downstream) write(m jsonrpc.Message) error {
	data, err := encode(m, d.secrets)
	if err != nil || data == nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if r, ok := m.(*jsonrpc.Response); ok {
		delete(d.pending, transport.IDKey(r.ID))
		select {
		case d.answered <- struct{}{}:
		default:
		}
	}
	_, err = d.w.Write(append(data, '\n'))
	return err
}

// encode is m's JSON text with secrets replaced. Their JSON forms are
// registered too, so a secret inside a string leaves the text valid;
// a message whose text no longer parses becomes an error answer (a
// response) or is dropped (anything else).
func encode(m jsonrpc.Message, secrets *redact.Set) ([]byte, error) {
	data, err := jsonrpc.EncodeMessage(m)
	if err != nil || secrets == nil {
		return data, err
	}
	out := []byte(secrets.String(string(data)))
	if json.Valid(out) {
		return out, nil
	}
	if r, ok := m.(*jsonrpc.Response); ok {
		return jsonrpc.EncodeMessage(&jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: "the answer quoted a credential of the server's and was withheld"}})
	}
	return nil, nil
}
