package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// A session's holder (mcpc session) serves its server to the invocations
// that attach to a Unix socket in a private directory. The socket speaks
// what a stdio server's pipes speak, newline-delimited JSON-RPC, so an
// invocation reaches a held server through the same transport code as a
// server it started.

// Socket is an invocation's connection to a session's holder.
type Socket struct {
	conn net.Conn
	in   *lineChecker
	out  *watchWriter
	// answered is closed once the holder has sent anything: it took the
	// connection and serves it.
	answered     chan struct{}
	answeredOnce sync.Once
}

// DialUnix connects to the Unix socket at path.
func DialUnix(ctx context.Context, path string) (net.Conn, error) {
	var conn net.Conn
	err := withSocketAddr(path, func(addr string) error {
		var d net.Dialer
		c, err := d.DialContext(ctx, "unix", addr)
		conn = c
		return err
	})
	return conn, err
}

// DialHolder connects to the holder listening at path: every connection
// to a session's socket, an invocation's and mcpc session's own probes,
// goes through it. A socket of another user's, or one in a directory of
// another user's (fsx.IsUser, the rule CheckPeer keeps), is not
// connected to (*ForeignSocketError): its holder would refuse this user,
// and a socket planted by another user must not be handed this user's
// requests.
func DialHolder(ctx context.Context, path string) (net.Conn, error) {
	for _, p := range []struct{ path, what string }{{path, "socket"}, {filepath.Dir(path), "socket's directory"}} {
		if st, err := os.Lstat(p.path); err == nil {
			if uid, ok := fsx.Owner(st); ok && !fsx.IsUser(uid) {
				return nil, &ForeignSocketError{UID: uid, What: p.what}
			}
		}
	}
	return DialUnix(ctx, path)
}

// DialSocket connects to the holder listening at path (DialHolder).
func DialSocket(ctx context.Context, path string) (*Socket, error) {
	conn, err := DialHolder(ctx, path)
	if err != nil {
		return nil, err
	}
	s := &Socket{conn: conn, answered: make(chan struct{})}
	s.in = &lineChecker{r: bufio.NewReaderSize(firstRead{conn, s}, 64<<10), c: conn, limit: DefaultMaxMessage}
	s.out = &watchWriter{w: conn, seen: make(chan struct{})}
	return s, nil
}

// Transport is the MCP transport over the socket: every message passes
// tap, and one message is at most limit bytes.
func (s *Socket) Transport(tap *Tap, limit int64) mcp.Transport {
	return lineTransport(s.in, s.out, tap, limit, "session")
}

// CancelSent is closed once a notifications/cancelled message has been
// written to the holder.
func (s *Socket) CancelSent() <-chan struct{} { return s.out.seen }

// Close ends the connection.
func (s *Socket) Close() error { return s.conn.Close() }

// Answered is closed once the holder has sent anything on the
// connection: the holder answers an invocation's handshake itself, at
// once, so one that has sent nothing a while after it was asked has not
// taken the connection, or does not serve it.
func (s *Socket) Answered() <-chan struct{} { return s.answered }

// firstRead tells its socket of the first bytes read.
type firstRead struct {
	r io.Reader
	s *Socket
}

func (f firstRead) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if n > 0 {
		f.s.answeredOnce.Do(func() { close(f.s.answered) })
	}
	return n, err
}

// ListenSocket listens at path, a name in a private directory where no
// socket is (a stale one is removed, under the session's lock, before).
// The socket is made 0600: only the user's processes may connect, and on
// Linux CheckPeer refuses any other uid that does.
func ListenSocket(path string) (net.Listener, error) {
	var ln net.Listener
	err := withSocketAddr(path, func(addr string) error {
		l, err := net.Listen("unix", addr)
		ln = l
		return err
	})
	if err != nil {
		return nil, err
	}
	// The listener must not remove the file on Close: a new holder may
	// already listen there by then. Its owner removes it under the lock.
	if ul, ok := ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
	if err := os.Chmod(path, 0o600); err != nil && runtime.GOOS != "windows" {
		ln.Close()
		os.Remove(path)
		return nil, err
	}
	return ln, nil
}

// maxSocketPath is the longest socket path every platform binds (104 on
// macOS and the BSDs, 108 on Linux, both with the final NUL).
const maxSocketPath = 103

// withSocketAddr calls f with an address that reaches the socket at
// path. A state directory deep enough makes the path longer than a
// socket address may be; on Linux the socket is then reached through
// the directory's descriptor (/proc/self/fd/N/NAME), elsewhere it is an
// error that names the path.
func withSocketAddr(path string, f func(addr string) error) error {
	if len(path) <= maxSocketPath {
		return f(path)
	}
	if runtime.GOOS != "linux" {
		return fmt.Errorf("the socket path %s is longer than the %d bytes a socket address may hold: set XDG_RUNTIME_DIR to a short private directory", path, maxSocketPath)
	}
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer dir.Close()
	addr := fmt.Sprintf("/proc/self/fd/%d/%s", dir.Fd(), filepath.Base(path))
	if len(addr) > maxSocketPath {
		return fmt.Errorf("the socket name %s is too long", filepath.Base(path))
	}
	return f(addr)
}

// MessageReader reads the newline-delimited JSON-RPC messages an
// invocation sends a holder, each at most limit bytes: what comes over
// the socket is bounded like what a server sends.
type MessageReader struct{ l *lineChecker }

// messageReaderSize is a MessageReader's buffer: room for most messages
// (a line longer is gathered past it, readLine), and small, since a
// holder or serve keeps one per client connected, idle or not.
const messageReaderSize = 8 << 10

// NewMessageReader reads messages from r.
func NewMessageReader(r io.ReadCloser, limit int) *MessageReader {
	return &MessageReader{l: &lineChecker{r: bufio.NewReaderSize(r, messageReaderSize), c: r, limit: limit + 1}}
}

// Read returns the next message (several, for a batch).
func (m *MessageReader) Read() ([]jsonrpc.Message, error) {
	line, err := m.l.next()
	if err != nil {
		return nil, err
	}
	return m.l.decode(line)
}

// ErrPeerRefused is what CheckPeer says of a connection from another user.
var ErrPeerRefused = errors.New("the connecting process belongs to another user")

// ForeignSocketError is DialHolder's refusal of a socket that belongs
// to another user, or lies in a directory that does.
type ForeignSocketError struct {
	UID  int
	What string // "socket" or "socket's directory"
}

func (e *ForeignSocketError) Error() string {
	return fmt.Sprintf("the session's %s belongs to another user (uid %d)", e.What, e.UID)
}
