package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errShutdown is the cause of cancelling in-flight requests at shutdown,
// which tools must not mistake for a client's cancellation.
var errShutdown = errors.New("server shutting down")

// serveHTTP serves Streamable HTTP at /mcp until ctx is done, then shuts
// down and returns 0.
func serveHTTP(ctx context.Context, opts *options, std streams) int {
	ln, err := net.Listen("tcp", opts.httpAddr)
	if err != nil {
		fmt.Fprintf(std.err, "testserver: error: %v\n", err)
		return 1
	}
	url := "http://" + ln.Addr().String() + "/mcp"

	stop := make(chan struct{})
	root := httpHandler(opts, std, stop)

	// Handlers get a context we cancel at shutdown: the SDK's long-lived SSE
	// streams would otherwise hold Shutdown until its deadline.
	baseCtx, cancelBase := context.WithCancelCause(context.Background())
	defer cancelBase(errShutdown)
	srv := &http.Server{
		Handler:           root,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return baseCtx },
		// --cut-stream closes a stream's connection itself, from the
		// goroutine that writes the event, not the handler's.
		ConnContext: func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	if opts.urlFile != "" {
		if err := writeFileAtomic(opts.urlFile, url+"\n"); err != nil {
			fmt.Fprintf(std.err, "testserver: error: %v\n", err)
			srv.Close()
			return 1
		}
	}
	fmt.Fprintln(std.err, url)

	select {
	case <-ctx.Done():
	case err := <-served:
		fmt.Fprintf(std.err, "testserver: error: %v\n", err)
		return 1
	}
	close(stop)
	cancelBase(errShutdown)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGracePeriod)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(std.err, "testserver: error: %v\n", err)
		return 1
	}
	return 0
}

// httpHandler is what serves the server's URL: the SDK's handler for the
// transport asked for, behind the faults, the checks, the redirect and
// the logs the options ask for. Closing stop ends the fault handler's
// held requests.
func httpHandler(opts *options, std streams, stop chan struct{}) http.Handler {
	mux := http.NewServeMux()
	var h http.Handler = &faultHandler{next: sdkHandler(opts, newServer(opts, std)), opts: opts, stderr: std.err, stop: stop}
	if opts.bearer != "" {
		h = requireBearer(opts.bearer, h)
	}
	if opts.refuseFile != "" || opts.forgetFile != "" {
		h = turnAway(opts.refuseFile, opts.forgetFile, h)
	}
	if opts.hostOnly != "" {
		h = hostOnly(opts.hostOnly, h)
	}
	switch {
	case opts.redirect == "":
		mux.Handle("/mcp", h)
	case strings.HasPrefix(opts.redirect, "/"):
		mux.Handle(opts.redirect, h)
		mux.Handle("/mcp", redirectTo(opts.redirect))
	default:
		mux.Handle("/mcp", redirectTo(opts.redirect))
	}
	var root http.Handler = mux
	if opts.busyOnce != "" {
		root = busyOnce(opts.busyOnce, opts.retryAfter, opts.signals != nil, root)
	}
	if opts.headerLog != "" {
		root = logHeaders(opts.headerLog, root)
	}
	if opts.cutStream > 0 {
		root = cutStream(opts.cutStream, root)
	}
	return root
}

// connKey is the context key of a request's net.Conn.
type connKey struct{}

// cutStream (--cut-stream N) cuts the first standalone GET stream halfway
// through its Nth message, once, by closing its connection: what a proxy
// that times out or a dropped network does to a long-lived stream. The
// event store has the event, so a client that resumes with Last-Event-ID
// is sent it again, whole.
func cutStream(n int, next http.Handler) http.Handler {
	var cut atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Context().Value(connKey{}).(net.Conn)
		if r.Method != http.MethodGet || r.Header.Get("Last-Event-ID") != "" || c == nil || cut.Load() {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(&cutter{ResponseWriter: w, conn: c, left: n, cut: &cut}, r)
	})
}

// cutter is a GET stream's writer that cuts the connection mid-event.
type cutter struct {
	http.ResponseWriter
	conn net.Conn
	mu   sync.Mutex
	left int
	cut  *atomic.Bool
}

// Write passes an event on, or, at the Nth message, half of it and then
// closes the connection. The SDK writes one event a Write.
func (c *cutter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !bytes.Contains(p, []byte("data: {")) || c.cut.Load() {
		return c.ResponseWriter.Write(p)
	}
	if c.left--; c.left > 0 {
		return c.ResponseWriter.Write(p)
	}
	c.cut.Store(true)
	n, _ := c.ResponseWriter.Write(p[:len(p)/2])
	_ = http.NewResponseController(c.ResponseWriter).Flush()
	c.conn.Close()
	return n, io.ErrClosedPipe
}

// Unwrap lets http.ResponseController reach the writer's Flush.
func (c *cutter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// sdkHandler is the SDK's handler of server for the transport the options
// ask for.
func sdkHandler(opts *options, server *mcp.Server) http.Handler {
	switch {
	case opts.sseEndpoint != "":
		return announceEndpoint(opts.sseEndpoint)
	case opts.sse:
		// The 2024-11-05 HTTP+SSE transport: GET /mcp opens the stream,
		// whose endpoint event names /mcp?sessionid=… for the POSTs.
		return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server },
			&mcp.SSEOptions{DisableLocalhostProtection: opts.anyHost})
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{
			Stateless: opts.stateless,
			// A 2026-07-28 client cancels by closing the request's stream;
			// without this the tool would never see it (and --cancel-file
			// would stay empty).
			PropagateRequestCancellation: true,
			DisableLocalhostProtection:   opts.anyHost,
			EventStore:                   eventStore(opts),
		})
}

// requireBearer answers 401 with a WWW-Authenticate challenge unless the
// request carries "Authorization: Bearer TOKEN", as a protected MCP server
// would; it lets tests pin mcpc's authentication failures.
func requireBearer(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// turnAway makes a server that stops accepting its clients while they
// hold on to it: while refuseFile exists, every request is answered with
// the status it holds (a revoked token, a scope no longer granted, a
// failure); once forgetFile appears, the sessions so far are unknown
// (404), as after a restart. Tests pin what a client held across requests
// (a session's holder) says then.
func turnAway(refuseFile, forgetFile string, next http.Handler) http.Handler {
	var mu sync.Mutex
	seen, forgotten := map[string]bool{}, map[string]bool{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if data, err := os.ReadFile(refuseFile); refuseFile != "" && err == nil {
			io.Copy(io.Discard, r.Body)
			switch status, _ := strconv.Atoi(strings.TrimSpace(string(data))); status {
			case http.StatusUnauthorized:
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="the token was revoked"`)
				http.Error(w, "unauthorized", status)
			case http.StatusForbidden:
				w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="mcp:admin"`)
				http.Error(w, "insufficient scope: mcp:admin is needed", status)
			case 0:
				http.Error(w, "bad --refuse-file", http.StatusInternalServerError)
			default:
				http.Error(w, "the server is failing", status)
			}
			return
		}
		id := r.Header.Get("Mcp-Session-Id")
		mu.Lock()
		if forgetFile != "" && os.Remove(forgetFile) == nil {
			for k := range seen {
				forgotten[k] = true
			}
			clear(seen)
		}
		gone := forgotten[id]
		if id != "" && !gone {
			seen[id] = true
		}
		mu.Unlock()
		if gone {
			io.Copy(io.Discard, r.Body)
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostOnly answers a request whose Host is not name (with the port it was
// sent to) as Playwright MCP does: 403, the reason as a bare body with no
// content type (Node's res.end), and no challenge: no credentials would
// change it.
func hostOnly(name string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, port, _ := net.SplitHostPort(r.Host)
		if allowed := net.JoinHostPort(name, port); r.Host != allowed {
			io.Copy(io.Discard, r.Body)
			w.Header()["Content-Type"] = nil // no sniffed text/plain
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, "Access is only allowed at "+allowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// redirectTo answers every request with 307 to target, which keeps the
// method and body: the redirect a client must not follow blindly.
func redirectTo(target string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Location", target)
		w.WriteHeader(http.StatusTemporaryRedirect)
	})
}

// logHeaders appends one line per request naming the credentials it
// carried, so tests can prove which requests reached this server with what.
func logHeaders(path string, next http.Handler) http.Handler {
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			params := ""
			for _, k := range slices.Sorted(maps.Keys(r.Header)) {
				if strings.HasPrefix(k, "Mcp-Param-") {
					params += " " + strings.ToLower(k) + "=" + r.Header.Get(k)
				}
			}
			fmt.Fprintf(f, "%s %s auth=%s x-token=%s%s\n", r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("X-Token"), params)
			f.Close()
		}
		mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// busyOnce answers the first request for method with 503 and
// "Retry-After: retry" (1 unless --retry-after), as a server shedding
// load would; later ones pass. With --signals, the answer is SEP-3304's
// instead: a 429 with a -32023 asking for 200ms, and that Retry-After.
func busyOnce(method, retry string, limited bool, next http.Handler) http.Handler {
	var once sync.Once
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var m struct{ Method string }
			json.Unmarshal(body, &m)
			busy := false
			if m.Method == method {
				once.Do(func() { busy = true })
			}
			if busy && limited {
				var id struct{ ID json.RawMessage }
				json.Unmarshal(body, &id)
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Retry-After", retry)
				w.WriteHeader(http.StatusTooManyRequests)
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"Rate limited","data":{"retryAfterMs":200}}}`, id.ID, rateLimitedCode)
				return
			}
			if busy {
				w.Header().Set("Retry-After", retry)
				http.Error(w, "busy, come back later", http.StatusServiceUnavailable)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// announceEndpoint is an HTTP+SSE server that announces endpoint (on
// another origin, say) and then says nothing: a POST refused as in the SDK's
// SSE handler, without a session.
func announceEndpoint(endpoint string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "sessionid must be provided", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", endpoint)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
}

// eventStore numbers the events of a 2025 session's streams, so that a
// client can resume one: --cut-stream needs it; otherwise none is kept,
// as a server that does not offer resumption has none.
func eventStore(opts *options) mcp.EventStore {
	if opts.cutStream == 0 {
		return nil
	}
	return mcp.NewMemoryEventStore(nil)
}
