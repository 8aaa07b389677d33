package serve

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// HTTP is the Streamable HTTP front of mcpc serve: one endpoint (Path)
// for 2025 clients (initialize starts an HTTP session, Mcp-Session-Id
// names it, GET opens its standalone stream, DELETE ends it) and for
// 2026-07-28 clients (each request stands alone: it gets a link of its
// own for as long as it runs).
type HTTP struct {
	// Endpoints are what is served where: the first (/mcp) every
	// server, then /mcp/NAME each one alone.
	Endpoints []Endpoint
	Secrets   *redact.Set
	// Bearer is the token every request must carry ("Authorization:
	// Bearer …"); "" lets any local process in (--no-auth).
	Bearer string
	// MaxRequests bounds the requests running at once, all clients
	// together: one more waits, bounded by its own context.
	MaxRequests int
	// Idle, when set, is touched by every request let in (--idle).
	Idle *Idle

	once     sync.Once
	slots    chan struct{}
	mu       sync.Mutex
	sessions map[string]*httpSession
}

// Endpoint is one path of the HTTP front and what it serves.
type Endpoint struct {
	Path    string
	Backend Backend
}

// httpSession is one 2025 client's HTTP session: its link to the held
// server, the requests it has in flight, and its standalone stream.
type httpSession struct {
	id   string
	path string // the endpoint it was started at, the one it is known at
	link Line
	done chan struct{}

	mu      sync.Mutex
	waiting map[string]*stream // by the request's id (transport.IDKey)
	order   []*stream          // in flight, oldest first
	tokens  map[string]*stream // by progress token
	get     *stream            // the standalone stream, when one is open
}

// stream is where the messages of one request (or the standalone
// stream) are written: an SSE response, or the one JSON answer.
type stream struct {
	out  chan jsonrpc.Message
	done chan struct{}
	sse  bool // an event stream: it can carry the server's questions
}

// DefaultMaxRequests bounds the requests serve runs at once.
const DefaultMaxRequests = 256

// maxSessions bounds the 2025 HTTP sessions serve keeps at once: each
// holds a link to a holder; a client that never ends its own (no DELETE)
// cannot grow serve past it.
const maxSessions = 1024

// maxSessionRequests bounds the requests one 2025 client's HTTP session
// runs at once: past it, 429, so one client cannot take every slot.
const maxSessionRequests = 32

func (s *HTTP) init() {
	s.once.Do(func() {
		s.slots = make(chan struct{}, max(s.MaxRequests, 1))
		s.sessions = map[string]*httpSession{}
	})
}

// ServeHTTP checks who asks (Host, Origin, the bearer), then serves the
// request by its method.
func (s *HTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.init()
	b := s.backend(r.URL.Path)
	if b == nil {
		http.Error(w, "not found: the MCP endpoint is "+s.Endpoints[0].Path, http.StatusNotFound)
		return
	}
	if why := foreign(r); why != "" {
		// DNS rebinding: a page in a browser reaching a loopback server.
		http.Error(w, why, http.StatusForbidden)
		return
	}
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpc serve"`)
		http.Error(w, "a bearer token is required: the one mcpc serve printed at its start", http.StatusUnauthorized)
		return
	}
	s.Idle.Touch()
	switch r.Method {
	case http.MethodPost:
		s.post(w, r, b)
	case http.MethodGet:
		s.standalone(w, r)
	case http.MethodDelete:
		s.end(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

func (s *HTTP) backend(path string) Backend {
	for _, e := range s.Endpoints {
		if path == e.Path {
			return e.Backend
		}
	}
	return nil
}

// servedLocally says r came to a loopback address of serve's.
func servedLocally(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return true // unknown: the stricter rule
	}
	host, _, err := net.SplitHostPort(a.String())
	return err != nil || urlx.IsLoopback(strings.Trim(host, "[]"))
}

// foreign says why a request comes from outside this machine's own
// clients: a Host that does not name a loopback address, or an Origin
// (a browser's page) that is not a loopback one. "" when neither.
func foreign(r *http.Request) string {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	// Served on loopback, a Host that is not is a page's DNS rebinding;
	// served off loopback (a bearer and TLS required), any Host is.
	if servedLocally(r) && !urlx.IsLoopback(strings.Trim(host, "[]")) {
		return "forbidden: Host " + r.Host + " is not this machine's loopback address"
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || !urlx.IsLoopback(u.Hostname()) {
			return "forbidden: Origin " + o + " is not a loopback page"
		}
	}
	return ""
}

func (s *HTTP) authorized(r *http.Request) bool {
	if s.Bearer == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(s.Bearer)) == 1
}

// post passes one message on: a 2025 client's, within its HTTP session
// (initialize starts one), or a stateless request on a link of its own.
func (s *HTTP) post(w http.ResponseWriter, r *http.Request, b Backend) {
	msg, err := s.read(w, r, b)
	if err != nil {
		return
	}
	req, isReq := msg.(*jsonrpc.Request)
	sid := r.Header.Get("Mcp-Session-Id")
	switch {
	case isReq && req.Method == "initialize" && sid == "":
		s.initialize(w, r, b, req)
	case sid != "":
		hs := s.session(sid)
		if hs == nil || hs.path != r.URL.Path {
			http.Error(w, "no such HTTP session: it ended, or serve restarted; initialize again", http.StatusNotFound)
			return
		}
		if !isReq || !req.IsCall() {
			if hs.link.Send(msg) != nil {
				http.Error(w, "the held server went away", http.StatusBadGateway)
				return
			}
			w.WriteHeader(http.StatusAccepted)
			return
		}
		s.call(w, r, hs, req)
	case isReq && req.IsCall() && eraOfFirst([]jsonrpc.Message{msg}) == Modern:
		s.stateless(w, r, b, req)
	default:
		http.Error(w, "a 2025 client sends Mcp-Session-Id after initialize; a 2026-07-28 request names its revision in _meta", http.StatusBadRequest)
	}
}

// read is the one message of a POST's body, bounded by the message
// limit; the answer is written when it cannot be read.
func (s *HTTP) read(w http.ResponseWriter, r *http.Request, b Backend) (jsonrpc.Message, error) {
	if r.ContentLength > b.MaxMessage() {
		// Refused before a byte is read: a body's size is no reason for
		// serve to hold it.
		http.Error(w, "the message is larger than serve's --max-message", http.StatusRequestEntityTooLarge)
		return nil, errors.New("too large")
	}
	// The body is one JSON value, which may span lines (pretty-printed):
	// read under the bound, put on one line, then read by the one message
	// reader under its bounds (depth, shape).
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, b.MaxMessage()))
	var line bytes.Buffer
	if err == nil && bytes.ContainsAny(raw, "\r\n") && json.Compact(&line, raw) == nil {
		raw = line.Bytes()
	}
	var msgs []jsonrpc.Message
	if err == nil {
		body := io.MultiReader(bytes.NewReader(raw), strings.NewReader("\n"))
		msgs, err = transport.NewMessageReader(io.NopCloser(body), int(b.MaxMessage())).Read()
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) || errors.Is(err, transport.ErrTooLarge) {
		http.Error(w, "the message is larger than serve's --max-message", http.StatusRequestEntityTooLarge)
		return nil, err
	}
	if err == nil && len(msgs) != 1 {
		err = errors.New("one JSON-RPC message per POST")
	}
	if err != nil {
		http.Error(w, "not a JSON-RPC message: "+err.Error(), http.StatusBadRequest)
		return nil, err
	}
	return msgs[0], nil
}

// initialize starts a 2025 client's HTTP session: its link, and the
// reader that routes what comes on it.
func (s *HTTP) initialize(w http.ResponseWriter, r *http.Request, b Backend, req *jsonrpc.Request) {
	id := newSessionID()
	// The call log names the client by its HTTP session's first bytes.
	link, err := b.Open(WithDownstream(r.Context(), "http:"+id[:8]), Legacy)
	if err != nil {
		http.Error(w, s.Secrets.String(err.Error()), http.StatusBadGateway)
		return
	}
	s.mu.Lock()
	full := len(s.sessions) >= maxSessions
	s.mu.Unlock()
	if full {
		link.Close()
		w.Header().Set("Retry-After", "5")
		http.Error(w, "serve holds as many HTTP sessions as it keeps: end one (DELETE) or try again", http.StatusServiceUnavailable)
		return
	}
	hs := &httpSession{id: id, path: r.URL.Path, link: link, done: make(chan struct{}),
		waiting: map[string]*stream{}, tokens: map[string]*stream{}}
	s.mu.Lock()
	s.sessions[hs.id] = hs
	s.mu.Unlock()
	go func() {
		hs.route()
		s.mu.Lock()
		delete(s.sessions, hs.id)
		s.mu.Unlock()
	}()
	w.Header().Set("Mcp-Session-Id", hs.id)
	s.call(w, r, hs, req)
}

func newSessionID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *HTTP) session(id string) *httpSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// call sends req within hs and writes what comes for it until its
// answer.
func (s *HTTP) call(w http.ResponseWriter, r *http.Request, hs *httpSession, req *jsonrpc.Request) {
	if hs.running() >= maxSessionRequests {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "this HTTP session runs as many requests as serve lets one client run at once", http.StatusTooManyRequests)
		return
	}
	if !s.take(w, r) {
		return
	}
	defer func() { <-s.slots }()
	st := hs.open(req, strings.Contains(r.Header.Get("Accept"), "text/event-stream"))
	defer hs.close(req, st)
	if err := hs.link.Send(req); err != nil {
		http.Error(w, "the held server went away", http.StatusBadGateway)
		return
	}
	s.write(w, r, st, req.ID, hs.done)
}

// take waits for one of the slots of the requests run at once.
func (s *HTTP) take(w http.ResponseWriter, r *http.Request) bool {
	select {
	case s.slots <- struct{}{}:
		return true
	case <-r.Context().Done():
		http.Error(w, "serve is busy", http.StatusServiceUnavailable)
		return false
	}
}

// stateless runs a 2026-07-28 request on a link of its own, for as long
// as it runs: no request depends on an earlier one. A server's link may
// have served an earlier request, and wait for a later one (pool.go).
func (s *HTTP) stateless(w http.ResponseWriter, r *http.Request, b Backend, req *jsonrpc.Request) {
	if !s.take(w, r) {
		return
	}
	defer func() { <-s.slots }()
	link, recv, done, err := openStateless(r.Context(), b)
	if err != nil && req.Method == "server/discover" {
		// A 2026-07-28 client's probe of a server that speaks 2025 only:
		// not found, as the server itself would answer, so the client
		// goes on with initialize (as on stdio).
		data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: "method not found: " + b.Label() + " speaks a 2025 revision (initialize)"}})
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(s.Secrets.String(string(data))))
		return
	}
	if err != nil {
		http.Error(w, s.Secrets.String(err.Error()), http.StatusBadGateway)
		return
	}
	st := &stream{out: make(chan jsonrpc.Message, 16), done: make(chan struct{})}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for {
			m, err := recv(st.done)
			if err != nil {
				return
			}
			select {
			case st.out <- m:
			case <-st.done:
				return
			}
		}
	}()
	if err := link.Send(req); err != nil {
		http.Error(w, "the held server went away", http.StatusBadGateway)
	} else {
		s.write(w, r, st, req.ID, ended)
	}
	close(st.done)
	done(ended)
}

// openStateless opens the line of one stateless request on b, with how
// it is read (given up when stop is closed) and done, called once the
// request is over with the reader's end: a server's link is leased
// (and given back once nothing reads it), any other line opened and
// closed.
func openStateless(ctx context.Context, b Backend) (line Line, recv func(stop <-chan struct{}) (jsonrpc.Message, error), done func(read <-chan struct{}), err error) {
	if u, ok := b.(*Upstream); ok {
		l, err := u.Lease(ctx)
		if err == nil {
			return l, l.receive, func(read <-chan struct{}) { <-read; u.Release(l) }, nil
		}
		if ctx.Err() != nil || !eraRefused(u, err) {
			return nil, nil, nil, err
		}
		// A server that speaks 2025 only: its line is a translation
		// (Open), opened and closed as any other backend's, not pooled.
	}
	line, err = b.Open(ctx, Modern)
	if err != nil {
		return nil, nil, nil, err
	}
	recv = func(<-chan struct{}) (jsonrpc.Message, error) { return line.Receive() }
	return line, recv, func(<-chan struct{}) { line.Close() }, nil
}
