package hold

import (
	"bytes"
	"container/list"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/transport"
)

// How a holder admits a connection to its socket: a connection takes one
// of its maxAttached slots only once it has spoken, so that connections
// that send nothing (a flood of them, of the same user) lock no
// invocation out and cost little while they wait.

// maxSilent bounds the connections that have not spoken yet, or wait for
// a slot: each costs a goroutine and a descriptor (a few KiB), none of an
// invocation's buffers. Past it the oldest silent one is let go, so that
// a flood of connections that send nothing never keeps a new one out:
// an invocation speaks at once, and one silent while maxSilent newer
// connections came is none.
const maxSilent = 1024

// accept takes the connections on ln until ln is closed. A connection
// takes one of the maxAttached slots only once it has spoken: until then
// it waits among the silent, bounded apart (maxSilent) and costing a
// goroutine each, so that connections that send nothing lock no
// invocation out. While maxSilent connections wait for a slot, each having
// spoken, the next waits in the socket's backlog.
func (h *Holder) accept(ln net.Listener, served <-chan struct{}) {
	slots := make(chan struct{}, h.maxAttached)
	silent := newSilentConns(h.maxSilent)
	h.silent.Store(silent)
	go func() {
		<-served
		silent.closeAll()
	}()
	for backoff := time.Duration(0); ; {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors, say: it passes as connections close.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			select {
			case <-served:
				return
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		if err := transport.CheckPeer(c); err != nil {
			// Told before the connection closes: whoever connected
			// finds it said once refused.
			if h.Refused != nil {
				h.Refused(err)
			}
			c.Close()
			continue
		}
		if e := silent.add(c); e != nil {
			go h.admit(c, e, silent, slots, served)
		}
	}
}

// admit waits up to firstWait for c to speak, then for a slot, and serves
// it.
func (h *Holder) admit(c net.Conn, e *silentConn, silent *silentConns, slots chan struct{}, served <-chan struct{}) {
	first := make([]byte, 1)
	c.SetReadDeadline(time.Now().Add(h.firstWait))
	n, _ := c.Read(first)
	if !silent.spoke(e, n > 0) {
		c.Close()
		return
	}
	took := false
	select {
	case slots <- struct{}{}:
		took = true
	default:
		// Every slot is taken. A status question is answered here, so
		// that a full holder is told from a hung one (session list, an
		// invocation whose handshake waits); anything else waits for
		// a slot with what was read of it.
		var status bool
		if first, status = h.lobby(c, first[:n]); status {
			silent.admitted()
			c.Close()
			return
		}
		n = len(first)
		select {
		case slots <- struct{}{}:
			took = true
		case <-served:
		}
	}
	silent.admitted()
	if took {
		defer func() { <-slots }()
	}
	select {
	case <-served:
		c.Close()
		return
	default:
	}
	h.serveConn(&spokenConn{Conn: c, first: first[:n]})
}

// silentConns is the connections accepted that wait to be admitted: the
// silent, oldest first, and those that spoke and wait for a slot.
type silentConns struct {
	mu      sync.Mutex
	max     int
	quiet   *list.List // of *silentConn that have not spoken
	waiting int        // connections that spoke, waiting for a slot
	room    chan struct{}
	closed  bool
}

// silentConn is one connection among the silent: its element in quiet
// while it is there, nil once it spoke or was let go.
type silentConn struct {
	c net.Conn
	e *list.Element
}

func newSilentConns(max int) *silentConns {
	return &silentConns{max: max, quiet: list.New(), room: make(chan struct{}, 1)}
}

// add counts c among the silent, letting the oldest silent one go when
// max connections wait already; while they all have spoken it waits for
// one to be admitted. It returns nil when c was closed instead (the
// holder is ending).
func (s *silentConns) add(c net.Conn) *silentConn {
	s.mu.Lock()
	for !s.closed && s.quiet.Len() == 0 && s.waiting >= s.max {
		s.mu.Unlock()
		<-s.room
		s.mu.Lock()
	}
	if s.closed {
		s.mu.Unlock()
		c.Close()
		return nil
	}
	var oldest net.Conn
	if s.quiet.Len()+s.waiting >= s.max {
		old := s.quiet.Remove(s.quiet.Front()).(*silentConn)
		old.e, oldest = nil, old.c
	}
	sc := &silentConn{c: c}
	sc.e = s.quiet.PushBack(sc)
	s.mu.Unlock()
	if oldest != nil {
		oldest.Close() // its admit finds it let go
	}
	return sc
}

// spoke takes sc out of the silent, to wait for a slot when it did speak;
// false when it did not, or was let go already.
func (s *silentConns) spoke(sc *silentConn, spoke bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sc.e == nil {
		return false
	}
	s.quiet.Remove(sc.e)
	sc.e = nil
	if spoke {
		s.waiting++
	} else {
		s.wake()
	}
	return spoke
}

// admitted says a connection that spoke waits no more.
func (s *silentConns) admitted() {
	s.mu.Lock()
	s.waiting--
	s.wake()
	s.mu.Unlock()
}

// wake tells add there may be room; s.mu is held.
func (s *silentConns) wake() {
	select {
	case s.room <- struct{}{}:
	default:
	}
}

// closeAll lets every silent connection go, and any accepted after.
func (s *silentConns) closeAll() {
	s.mu.Lock()
	s.closed = true
	var conns []net.Conn
	for e := s.quiet.Front(); e != nil; e = e.Next() {
		sc := e.Value.(*silentConn)
		sc.e = nil
		conns = append(conns, sc.c)
	}
	s.quiet.Init()
	s.wake()
	s.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// spokenConn is a connection whose first bytes were read before it was
// admitted: they are read again first.
type spokenConn struct {
	net.Conn
	first []byte
}

func (c *spokenConn) Read(p []byte) (int, error) {
	if len(c.first) > 0 {
		n := copy(p, c.first)
		c.first = c.first[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// lobbyLine bounds what the lobby reads of a waiting connection's first
// line: a status question is some 70 bytes; a longer line is none, and
// waits for its slot as it is.
const lobbyLine = 512

// lobby reads the first line of c, which has sent got and waits for a
// slot, up to lobbyLine and within firstWait; when it is a holdwire.Status
// request it answers it (busy) and reports true. Otherwise it returns
// what it read, to be read again once c is served.
func (h *Holder) lobby(c net.Conn, got []byte) ([]byte, bool) {
	line := append(make([]byte, 0, lobbyLine), got...)
	c.SetReadDeadline(time.Now().Add(h.firstWait))
	for !bytes.Contains(line, []byte("\n")) && len(line) < lobbyLine {
		n, err := c.Read(line[len(line):lobbyLine])
		line = line[:len(line)+n]
		if err != nil {
			break
		}
	}
	c.SetReadDeadline(time.Time{})
	end := bytes.IndexByte(line, '\n')
	if end < 0 {
		return line, false
	}
	msg, err := jsonrpc.DecodeMessage(line[:end])
	req, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok || req.Method != holdwire.Status || !req.ID.IsValid() {
		return line, false
	}
	out, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: h.status(true)})
	if err == nil {
		c.SetWriteDeadline(time.Now().Add(h.firstWait))
		c.Write(append(out, '\n'))
	}
	return nil, true
}
