package serve

import (
	"context"
	"errors"
	"net"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/transport"
)

// A Link is one downstream client's line to a held server: a connection
// to the server's holder, which maps ids and progress tokens, routes the
// server's questions and notifications to the client they are for, and
// cancels the client's requests when it goes away (client/hold). serve
// opens one per client: a stdio client, a 2025 HTTP client's
// Mcp-Session-Id, a 2026-07-28 HTTP request.
type Link struct {
	c net.Conn
	r *transport.MessageReader

	wmu     sync.Mutex
	pending []jsonrpc.Message // read past a batch's first message
}

// newLink opens a link over c, reading messages of at most limit bytes.
func newLink(c net.Conn, limit int64) *Link {
	return &Link{c: c, r: transport.NewMessageReader(c, int(limit))}
}

// Send passes msg to the held server.
func (l *Link) Send(msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	_, err = l.c.Write(append(data, '\n'))
	return err
}

// Receive is the next message from the held server, for this client.
func (l *Link) Receive() (jsonrpc.Message, error) {
	if len(l.pending) > 0 {
		m := l.pending[0]
		l.pending = l.pending[1:]
		return m, nil
	}
	msgs, err := l.r.Read()
	if err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return nil, errors.New("the holder sent an empty batch")
	}
	l.pending = msgs[1:]
	return msgs[0], nil
}

// Close ends the link: the holder cancels what the client left running.
func (l *Link) Close() error { return l.c.Close() }

// Call sends req and returns its answer, passing every other message that
// comes first to other (nil: dropped). It is how serve asks the holder on
// its own behalf (the handshake result it serves from).
func (l *Link) Call(ctx context.Context, req *jsonrpc.Request, other func(jsonrpc.Message)) (*jsonrpc.Response, error) {
	stop := context.AfterFunc(ctx, func() { l.c.Close() })
	defer stop()
	if err := l.Send(req); err != nil {
		return nil, err
	}
	for {
		m, err := l.Receive()
		if err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, err
		}
		if r, ok := m.(*jsonrpc.Response); ok && r.ID == req.ID {
			return r, nil
		}
		if other != nil {
			other(m)
		}
	}
}
