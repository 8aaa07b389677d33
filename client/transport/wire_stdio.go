package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport is the MCP transport over the server's stdin and stdout: every
// message passes tap, and one message is at most limit bytes.
func (p *Process) Transport(tap *Tap, limit int64) mcp.Transport {
	return lineTransport(p.stdout, p.stdin, tap, limit, "stdio")
}

// lineTransport is newline-delimited JSON-RPC read from in and written to
// out, every message passing tap: a stdio server's pipes, or the socket
// of a session's holder (the transport named name in a recording).
func lineTransport(in *lineChecker, out io.WriteCloser, tap *Tap, limit int64, name string) mcp.Transport {
	in.frame, in.framed, in.over, in.limit = tap.frame, tap.framed, tap.OverLimit, int(limit)+1
	in.bound = tap.limit
	in.drops, in.dropped = tap.dropping, tap.dropped
	if rec := tap.rec; rec != nil {
		in.record = func(line []byte) { rec.message("in", name, line) }
	}
	return &wireTransport{inner: &stdioTransport{in: in, out: out, skip: tap.skip, rec: tap.rec, name: name}, tap: tap}
}

// stdioTransport is newline-delimited JSON-RPC over the server's stdout and
// stdin, with each line decoded once. (The SDK's IOTransport scans a line
// three times before it has a message: a JSON decoder finds its end, a
// batch is tried, then the message is decoded; under a flood of
// notifications that was most of mcpc's time.)
type stdioTransport struct {
	in   *lineChecker
	out  io.WriteCloser
	skip func(line []byte) bool
	rec  *RecordConn // see Tap.Record
	name string      // "stdio" or "session", as a recording names it
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	return &stdioConn{t: t}, nil
}

type stdioConn struct {
	t     *stdioTransport
	queue []jsonrpc.Message // the rest of a batch

	writeMu   sync.Mutex
	closeOnce sync.Once
	closeErr  error
}

// Read returns the next message. It is called from one goroutine only
// (wireConn's pump).
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for len(c.queue) == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		line, err := c.t.in.next()
		if err != nil {
			return nil, err
		}
		if c.t.skip != nil && c.t.skip(line) {
			continue
		}
		if c.queue, err = c.t.in.decode(line); err == errDropped {
			continue
		} else if err != nil {
			return nil, err
		}
	}
	m := c.queue[0]
	c.queue = c.queue[1:]
	return m, nil
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.t.rec != nil {
		c.t.rec.message("out", c.t.name, data)
	}
	_, err = c.t.out.Write(append(data, '\n'))
	return err
}

// Close closes both pipes, the server's stdout first, as the SDK's
// transport does.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = errors.Join(c.t.in.Close(), c.t.out.Close())
	})
	return c.closeErr
}

func (c *stdioConn) SessionID() string { return "" }

// wireTransport puts the tap between the SDK and a stdio connection. (Over
// HTTP the RoundTripper does the same: wrapping an HTTP connection would
// hide it from the SDK's session bookkeeping.)
type wireTransport struct {
	inner mcp.Transport
	tap   *Tap
}

func (t *wireTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	wc := &wireConn{inner: c, tap: t.tap, local: make(chan jsonrpc.Message, 16), done: make(chan struct{})}
	t.tap.Side.setWriter(c.Write)
	return wc, nil
}

type wireConn struct {
	inner mcp.Connection
	tap   *Tap
	// local carries responses the wire answered itself; the SDK reads them
	// like any other message.
	local chan jsonrpc.Message

	startOnce sync.Once
	in        chan readResult
	done      chan struct{}
	closeOnce sync.Once
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// pump reads the real connection in the background, so Read can wait for a
// locally answered message and a server message at the same time.
func (c *wireConn) pump() {
	c.in = make(chan readResult)
	go func() {
		for {
			msg, err := c.inner.Read(context.Background())
			if err == nil && c.tap.Side.claim(msg) {
				continue // the answer to one of mcpc's own requests
			}
			if err == nil && c.tap.divert(msg) {
				continue // routed by a session's holder
			}
			if err == nil {
				c.tap.incoming(msg)
			} else {
				c.tap.Side.lost()
			}
			select {
			case c.in <- readResult{msg, err}:
			case <-c.done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
}

func (c *wireConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.startOnce.Do(c.pump)
	// A locally answered response first: the SDK is waiting for it.
	select {
	case m := <-c.local:
		return m, nil
	default:
	}
	// The server's requests wait while too many of its earlier ones are
	// unanswered (the answers are not being read).
	if err := c.tap.waitRoom(c.done); err != nil {
		return nil, err
	}
	select {
	case m := <-c.local:
		return m, nil
	case r := <-c.in:
		return r.msg, r.err
	case <-c.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *wireConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, err := c.tap.outgoing(msg)
	if err != nil {
		return err
	}
	if resp != nil {
		select {
		case c.local <- resp:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := c.inner.Write(ctx, msg); err != nil {
		return err
	}
	if _, ok := msg.(*jsonrpc.Response); ok {
		c.tap.answered()
	}
	return nil
}

func (c *wireConn) Close() error {
	c.closeOnce.Do(func() { close(c.done) })
	return c.inner.Close()
}

func (c *wireConn) SessionID() string { return c.inner.SessionID() }
