package serve

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/hold"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// Era is which family of revisions a downstream client speaks: a 2025
// revision (initialize, Mcp-Session-Id) or 2026-07-28 (stateless).
type Era int

const (
	Legacy Era = iota // 2025-11-25 and earlier
	Modern            // 2026-07-28
)

func (e Era) String() string {
	if e == Modern {
		return "2026-07-28"
	}
	return "2025-11-25"
}

// Protocol is the revision serve pins a connection it holds for clients
// of e: the newest of the era.
func (e Era) Protocol() string { return e.String() }

// EraOf is the era of a revision a client or server named.
func EraOf(version string) Era {
	if version >= "2026-07-28" {
		return Modern
	}
	return Legacy
}

// Upstream is one server serve lends, as its downstream clients reach
// it: each Link is one client's line to a holder of the server.
type Upstream struct {
	Name   string // the server's, for messages
	Server string // its plain name: SERVER in SERVER__TOOL, and the call log's
	Limit  int64  // bytes in one message, both ways (--max-message)
	// Session is the socket of the server's live session and the era its
	// holder speaks; "" when serve holds the server itself only.
	Session    string
	SessionEra Era
	// Hold holds the server for clients of era in this process: a
	// connection pinned to the era, its holder on a private socket. It is
	// used for an era the session does not speak, and for every era with
	// --no-session. The first client of the era opens it.
	Hold func(ctx context.Context, era Era) (*conn.Conn, error)
	// Log, when set, is told what a holder serve keeps has to say.
	Log func(msg string)
	// Hidden says why the entry's tool filter hides a tool ("" when it
	// is shown); nil hides none (--no-filter).
	Hidden func(tool string) string
	// Policy is serve's --allow, --deny, --read-only and --log; nil
	// refuses nothing and logs nothing.
	Policy *Policy
	// RequestTimeout bounds the wait for the server's answer to one
	// client request (--request-timeout); 0: none.
	RequestTimeout time.Duration

	pool linkPool // links waiting for a stateless request (pool.go)

	tasks taskBook // which client owns each task

	mu     sync.Mutex
	own    [2]*owned
	failed [2]error // why holding the server for an era failed: not tried again
	dir    string
}

// owned is a holder serve keeps: its connection and private socket.
type owned struct {
	c      *conn.Conn
	h      *hold.Holder
	ln     net.Listener
	path   string
	cancel context.CancelFunc
	done   chan struct{}
}

// Link opens a line to the server for one client of era.
func (u *Upstream) Link(ctx context.Context, era Era) (*Link, error) {
	path := u.Session
	if path == "" || u.SessionEra != era {
		o, err := u.owned(ctx, era)
		if err != nil {
			return nil, err
		}
		path = o.path
	}
	c, err := transport.DialUnix(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the holder of %s: %w", u.Name, err)
	}
	return newLink(c, u.Limit, rules{hidden: u.Hidden, policy: u.Policy, server: u.Server,
		downstream: downstreamOf(ctx), label: u.Name, timeout: u.RequestTimeout, book: &u.tasks}), nil
}

// owned is the holder serve keeps for era, opened now if it is not yet.
func (u *Upstream) owned(ctx context.Context, era Era) (*owned, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if o := u.own[era]; o != nil {
		select {
		case <-o.done:
			// Its server ended: what it held is gone, and a new one would
			// not say so. serve goes on for the clients of the other era.
			return nil, fmt.Errorf("%s ended; serve holds it no more", u.Name)
		default:
			return o, nil
		}
	}
	if u.Hold == nil {
		return nil, fmt.Errorf("%s is held in %s only", u.Name, u.SessionEra)
	}
	if u.dir == "" {
		dir, err := os.MkdirTemp("", "mcpc-serve-")
		if err != nil {
			return nil, err
		}
		u.dir = dir
	}
	if err := u.failed[era]; err != nil {
		return nil, err
	}
	c, err := u.Hold(ctx, era)
	if err != nil {
		if ctx.Err() == nil && fail.CodeOf(err) == fail.Protocol {
			// A server that does not speak the era will not: a 2026-07-28
			// client probing again is answered without a server started.
			// Any other failure (down, slow, a login) is tried again.
			u.failed[era] = err
		}
		return nil, err
	}
	h, err := hold.NewHolder(c)
	if err != nil {
		c.Close()
		return nil, err
	}
	h.Name, h.Log = u.Name, u.Log
	o := &owned{c: c, h: h, path: filepath.Join(u.dir, era.String()+".sock"), done: make(chan struct{})}
	if o.ln, err = transport.ListenSocket(o.path); err != nil {
		h.Close()
		c.Close()
		return nil, err
	}
	var sctx context.Context
	sctx, o.cancel = context.WithCancel(context.Background())
	go func() {
		defer close(o.done)
		if ended, _ := h.Serve(sctx, o.ln, 0); ended != "" && u.Log != nil {
			u.Log(fmt.Sprintf("%s ended: %s", u.Name, ended))
		}
		// Its clients' links end with it: each hears that the server went.
		h.Close()
	}()
	u.own[era] = o
	return o, nil
}

// Close ends the holders serve keeps, and their servers.
func (u *Upstream) Close() {
	u.pool.close()
	u.mu.Lock()
	defer u.mu.Unlock()
	for i, o := range u.own {
		if o == nil {
			continue
		}
		o.cancel()
		<-o.done
		o.ln.Close()
		o.h.Close()
		o.c.Close()
		u.own[i] = nil
	}
	if u.dir != "" {
		os.RemoveAll(u.dir)
	}
}
