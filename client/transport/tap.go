package transport

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Wire is what a session does with each raw message: package client's
// wire, which knows the eras, the results cache and the requests in
// flight. The tap calls it for every message, both ways, on either
// transport.
type Wire interface {
	// Outgoing sees a message the SDK sends. It may rewrite a request's
	// params, or answer it locally: then the returned response goes back
	// to the SDK and nothing is sent.
	Outgoing(msg jsonrpc.Message) (*jsonrpc.Response, error)
	// Incoming sees a message from the server before the SDK does.
	Incoming(msg jsonrpc.Message)
	// Frame sees a message from the server as bytes (valid JSON), before
	// it is decoded, and may return a smaller message for the SDK to
	// decode in its place. Only messages over BigMessage bytes are shown
	// to it, or every one while Tap.FrameAll is on.
	Frame(data []byte) []byte
	// Skip sees a message from the server as bytes (a line over stdio)
	// before it is decoded, and says whether it can be dropped there: a
	// notification nobody will see (a log message below --log-level)
	// need not cost a decode and the SDK's dispatch. A dropped message
	// still counts as the server's activity.
	Skip(line []byte) bool
	// Refused is told, over HTTP, of a request whose answer was an error
	// status or not a JSON-RPC message, with what that answer carried.
	Refused(call *jsonrpc.Request, e *HTTPError)
	// Verbose receives one line per traced event (--verbose); nil: off.
	Verbose() func(line string)
}

// BigMessage is the size above which a message from the server is shown to
// Wire.Frame before it is decoded.
const BigMessage = 1 << 20

// Tap is the layer below the SDK that every JSON-RPC message of a session
// passes raw, on stdio (a wrapper around the connection, see
// wire_stdio.go) and on HTTP (the RoundTripper). It keeps the bounds on
// what the server sends (limits.go) and shows each message to the
// session's Wire.
type Tap struct {
	wire Wire
	// Side carries mcpc's own requests beside the SDK's on stdio.
	Side SideChannel

	mu         sync.Mutex
	limitErr   error         // ErrTooLarge, ErrTooDeep or ErrFlood, once a message broke a limit
	unanswered int           // the server's requests not answered yet
	room       chan struct{} // closed when an answer is delivered

	frameAll atomic.Bool  // see FrameAll
	bound    atomic.Int64 // see Bound; 0: none

	// rec records every message that passes (--record); nil, as it is
	// unless set before the transport is made, costs a nil check.
	rec *RecordConn

	diverter   atomic.Pointer[func(jsonrpc.Message) bool]          // see Divert
	unreadable atomic.Pointer[func(err error, id json.RawMessage)] // see Unreadable
}

// Divert hands every message from the server to route before the SDK
// sees it; a message route takes (it returns true) goes no further. A
// session's holder routes the server's messages to the invocations
// attached to it this way: on stdio as the connection's reader reads
// them, on HTTP as each JSON body or event stream is read (the SDK's
// standalone stream and the requests the holder relays alike). route
// must not block.
func (t *Tap) Divert(route func(jsonrpc.Message) bool) { t.diverter.Store(&route) }

func (t *Tap) divert(msg jsonrpc.Message) bool {
	if f := t.diverter.Load(); f != nil {
		return (*f)(msg)
	}
	return false
}

// skip is Wire.Skip, until the messages are diverted: then each goes to
// its route (a held server's progress and log messages to the
// invocations attached, not to the holder's own session, which would
// drop them unseen).
func (t *Tap) skip(line []byte) bool {
	return t.diverter.Load() == nil && t.wire.Skip(line)
}

// Record makes the tap record every message that passes it into c (nil:
// none). It is set before the tap's transport is made.
func (t *Tap) Record(c *RecordConn) { t.rec = c }

// NewTap is the tap of a session whose Wire is w.
func NewTap(w Wire) *Tap { return &Tap{wire: w} }

// LimitErr is the first limit a message from the server broke (ErrTooLarge,
// ErrTooDeep or ErrFlood), or nil: the connection ended there, which the
// SDK reports as a closed connection.
func (t *Tap) LimitErr() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.limitErr
}

func (t *Tap) trace(format string, args ...any) {
	if v := t.wire.Verbose(); v != nil {
		v(fmt.Sprintf(format, args...))
	}
}

func (t *Tap) outgoing(msg jsonrpc.Message) (*jsonrpc.Response, error) {
	resp, err := t.wire.Outgoing(msg)
	if resp != nil && t.rec != nil {
		t.rec.local(msg, resp)
	}
	return resp, err
}

// incoming counts the server's requests (see waitRoom) and shows msg to
// the wire.
func (t *Tap) incoming(msg jsonrpc.Message) {
	if r, ok := msg.(*jsonrpc.Request); ok && r.ID.IsValid() {
		t.serverRequest()
	}
	t.wire.Incoming(msg)
}

func (t *Tap) frame(data []byte) []byte { return t.wire.Frame(data) }

// framed reports whether a message of n bytes goes through Wire.Frame:
// a large one, or any while FrameAll is on.
func (t *Tap) framed(n int) bool { return n > BigMessage || t.frameAll.Load() }

// FrameAll shows Wire.Frame every message from the server, whatever its
// size, while on: the wire is cutting list pages down for the SDK.
func (t *Tap) FrameAll(on bool) { t.frameAll.Store(on) }

// IDKey is a JSON-RPC id as a map key: the number 1 and the string "1"
// are different ids.
func IDKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }
