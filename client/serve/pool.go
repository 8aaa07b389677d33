package serve

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// A stateless (2026-07-28) HTTP request runs on a link of its own, as
// long as it runs. Opening one is a socket dialed and a holder's attach
// (its goroutines and buffers) per request, most of serve's cost under
// load; so a link whose request was answered, and over which nothing
// else went, waits in its upstream's pool for the next request.
//
// Nothing of one request reaches another by it: the holder maps the ids
// and progress tokens of each request it routes and forgets them at the
// answer (a late progress notification is dropped there), and asks the
// server's questions only of a link with a request in flight. A link is
// not kept when anything but requests and their answers went over it: a
// request unanswered (the client went away; the holder cancels it as the
// link closes), a question of the server's, a cancellation, a task (the
// holder routes a task's questions to the link that made it) or a
// subscription. What the holder sends a link while it waits (a
// notification it sends every client) is dropped.

// maxIdleLinks bounds the links an upstream keeps waiting: each holds a
// holder's attach slot (half of them at most: the rest are for the other
// clients), goroutines and buffers.
const maxIdleLinks = 128

// errStopped is receive's when told to stop.
var errStopped = errors.New("stopped")

// linkPool is an upstream's links waiting for a stateless request.
type linkPool struct {
	mu   sync.Mutex
	idle []*Link
}

// get is a waiting link whose holder is still there; nil when none is.
func (p *linkPool) get() *Link {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.idle) > 0 {
		l := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		select {
		case <-l.readDone:
			l.Close()
		default:
			l.idle.Store(false)
			return l
		}
	}
	return nil
}

// put keeps l for the next request, when it may serve one; else closes
// it. What came on it past its answer is dropped.
func (p *linkPool) put(l *Link) {
	if !l.reusable() {
		l.Close()
		return
	}
	l.idle.Store(true)
	for drained := false; !drained; {
		select {
		case <-l.in:
		case <-l.local:
		default:
			drained = true
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) >= maxIdleLinks {
		l.Close()
		return
	}
	p.idle = append(p.idle, l)
}

// close ends every waiting link.
func (p *linkPool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, l := range idle {
		l.Close()
	}
}

// Lease is a link for one stateless request: a waiting one, else a new
// one. Give it back with Release once nothing reads it any more.
func (u *Upstream) Lease(ctx context.Context) (*Link, error) {
	if l := u.pool.get(); l != nil {
		return l, nil
	}
	return u.Link(ctx, Modern)
}

// Release keeps l for the next stateless request, or closes it.
func (u *Upstream) Release(l *Link) { u.pool.put(l) }

// sent notes a request of the client's, key its id, going on.
func (l *Link) sent(key, method string, params gjson.Result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open[key] = true
	if strings.HasPrefix(method, "tasks/") || strings.HasPrefix(method, "subscriptions/") || params.Get("task").Exists() {
		l.kept = false
	}
}

// answered notes the answer r to the client's request key.
func (l *Link) answered(key string, r *jsonrpc.Response) {
	task := r.Error == nil && rawmsg.View(r.Result).Get("task").Exists()
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.open, key)
	if task {
		l.kept = false
	}
}

// spoil says l serves no later request.
func (l *Link) spoil() {
	l.mu.Lock()
	l.kept = false
	l.mu.Unlock()
}

// reusable says l may serve the next stateless request.
func (l *Link) reusable() bool {
	select {
	case <-l.readDone:
		return false
	case <-l.quit:
		return false
	default:
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.kept && len(l.open) == 0
}
