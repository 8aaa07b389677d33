package serve

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// streamQueue bounds what waits to be written to one stream: past it a
// notification (a log message, progress) is dropped, an answer or a
// question waits for the stream, so a slow client slows only itself.
const streamQueue = 64

func newStream(sse bool) *stream {
	return &stream{out: make(chan jsonrpc.Message, streamQueue), done: make(chan struct{}), sse: sse}
}

// open registers the stream of req, a request in flight; sse says its
// client takes an event stream, which can carry the server's questions.
func (hs *httpSession) open(req *jsonrpc.Request, sse bool) *stream {
	st := newStream(sse)
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.waiting[transport.IDKey(req.ID)] = st
	hs.order = append(hs.order, st)
	if tok := rawmsg.View(req.Params).Get("_meta.progressToken"); tok.Exists() {
		hs.tokens[tok.Raw] = st
	}
	return st
}

// running is how many of hs's requests are in flight.
func (hs *httpSession) running() int {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return len(hs.order)
}

// close forgets the stream of req, answered or abandoned.
func (hs *httpSession) close(req *jsonrpc.Request, st *stream) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	delete(hs.waiting, transport.IDKey(req.ID))
	for i, o := range hs.order {
		if o == st {
			hs.order = append(hs.order[:i], hs.order[i+1:]...)
			break
		}
	}
	if tok := rawmsg.View(req.Params).Get("_meta.progressToken"); tok.Exists() {
		delete(hs.tokens, tok.Raw)
	}
	close(st.done)
}

// route delivers what comes on the session's link until it ends: an
// answer to the stream of its request; progress to the stream of the
// request it is about; a question of the server's to the stream of the
// request it is asked under (asker); any other message to the oldest
// request in flight (what a server says during a call is about it), else
// to the standalone stream; with neither, a notification is dropped.
func (hs *httpSession) route() {
	defer close(hs.done)
	for {
		m, err := hs.link.Receive()
		if err != nil {
			return
		}
		hs.mu.Lock()
		var to *stream
		switch v := m.(type) {
		case *jsonrpc.Response:
			to = hs.waiting[transport.IDKey(v.ID)]
		case *jsonrpc.Request:
			if v.IsCall() {
				var why string
				if to, why = hs.asker(); to == nil {
					hs.mu.Unlock()
					hs.refuse(v, why)
					continue
				}
				break
			}
			if tok := rawmsg.View(v.Params).Get("progressToken"); v.Method == "notifications/progress" && tok.Exists() {
				to = hs.tokens[tok.Raw]
			}
			if to == nil && len(hs.order) > 0 {
				to = hs.order[0]
			}
			if to == nil {
				to = hs.get
			}
		}
		hs.mu.Unlock()
		if to != nil {
			deliver(to, m)
		}
	}
}

// asker is the stream a question of the server's goes to: the one
// request in flight, which it is asked under, when its client takes an
// event stream; with none in flight, the standalone stream. nil, and
// why, when no stream can carry it or which request it is about is not
// known (it is not guessed). hs.mu is held.
func (hs *httpSession) asker() (*stream, string) {
	switch {
	case len(hs.order) == 1 && hs.order[0].sse:
		return hs.order[0], ""
	case len(hs.order) == 1:
		return nil, "mcpc serve: the client's request takes a JSON answer only, which cannot carry the server's question"
	case len(hs.order) > 1:
		return nil, fmt.Sprintf("mcpc serve: the client has %d requests in flight and the question does not say which it is asked under; "+
			"it is not guessed", len(hs.order))
	case hs.get != nil:
		return hs.get, ""
	}
	return nil, "mcpc serve: the client has no stream open to carry the server's question"
}

// refuse answers q, a question of the server's no stream can carry, at
// once: the server is not left waiting for an answer that cannot come.
func (hs *httpSession) refuse(q *jsonrpc.Request, why string) {
	hs.link.Send(&jsonrpc.Response{ID: q.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: why}})
}

// deliver queues m on st: a notification only when there is room.
func deliver(st *stream, m jsonrpc.Message) {
	if r, ok := m.(*jsonrpc.Request); ok && !r.IsCall() {
		select {
		case st.out <- m:
		case <-st.done:
		default:
		}
		return
	}
	select {
	case st.out <- m:
	case <-st.done:
	}
}

// write answers a request: as an event stream of every message for it,
// its answer last, when the client accepts one; else as its one JSON
// answer. It returns at the answer, when the client goes away, or when
// gone (the link) ends.
func (s *HTTP) write(w http.ResponseWriter, r *http.Request, st *stream, id jsonrpc.ID, gone <-chan struct{}) {
	s.events(w, r, st, transport.IDKey(id), gone, false)
}

// events writes st until the answer to want ("": none), the client's
// going away or gone; started says the event stream's head is written.
func (s *HTTP) events(w http.ResponseWriter, r *http.Request, st *stream, want string, gone <-chan struct{}, started bool) {
	sse := started || strings.Contains(r.Header.Get("Accept"), "text/event-stream")
	for {
		select {
		case m := <-st.out:
			resp, isResp := m.(*jsonrpc.Response)
			answer := isResp && want != "" && transport.IDKey(resp.ID) == want
			if !sse && !answer {
				continue // a JSON answer has room for the answer only
			}
			data, err := encode(m, s.Secrets)
			if err != nil || data == nil {
				continue
			}
			if !sse {
				w.Header().Set("Content-Type", "application/json")
				w.Write(data)
				return
			}
			if !started {
				w.Header().Set("Content-Type", "text/event-stream")
				w.Header().Set("Cache-Control", "no-cache")
				w.WriteHeader(http.StatusOK)
				started = true
			}
			w.Write([]byte("event: message\ndata: "))
			w.Write(data)
			w.Write([]byte("\n\n"))
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			if answer {
				return
			}
		case <-r.Context().Done():
			return
		case <-gone:
			if !started {
				http.Error(w, "the held server went away before it answered", http.StatusBadGateway)
			}
			return
		}
	}
}

// standalone is a 2025 client's GET stream: what its server says that
// is about no request in flight (list changes, resource updates).
func (s *HTTP) standalone(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		w.Header().Set("Allow", "POST")
		http.Error(w, "a stream of its own is a 2025 HTTP session's: initialize first", http.StatusMethodNotAllowed)
		return
	}
	hs := s.session(sid)
	if hs == nil || hs.path != r.URL.Path {
		http.Error(w, "no such HTTP session", http.StatusNotFound)
		return
	}
	st := newStream(true)
	hs.mu.Lock()
	if hs.get != nil {
		hs.mu.Unlock()
		http.Error(w, "the HTTP session has a stream of its own already", http.StatusConflict)
		return
	}
	hs.get = st
	hs.mu.Unlock()
	defer func() {
		hs.mu.Lock()
		hs.get = nil
		hs.mu.Unlock()
		close(st.done)
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	s.events(w, r, st, "", hs.done, true)
}

// end is a 2025 client's DELETE: its HTTP session ends, and the holder
// cancels what it left running.
func (s *HTTP) end(w http.ResponseWriter, r *http.Request) {
	hs := s.session(r.Header.Get("Mcp-Session-Id"))
	if hs == nil || hs.path != r.URL.Path {
		http.Error(w, "no such HTTP session", http.StatusNotFound)
		return
	}
	hs.link.Close()
	<-hs.done
	w.WriteHeader(http.StatusNoContent)
}

// Close ends every HTTP session.
func (s *HTTP) Close() {
	s.init()
	s.mu.Lock()
	all := make([]*httpSession, 0, len(s.sessions))
	for _, hs := range s.sessions {
		all = append(all, hs)
	}
	s.mu.Unlock()
	for _, hs := range all {
		hs.link.Close()
		<-hs.done
	}
}
