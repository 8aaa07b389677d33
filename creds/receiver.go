package creds

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// callbackPath is where the authorization server sends the browser back.
const callbackPath = "/callback"

// receiver is the loopback end of the redirect: it accepts exactly one
// valid callback (GET, our Host, our path, the flow's state). Anything else
// is answered with an error and leaves the flow waiting, so a stray or
// hostile request (a page probing localhost, a DNS-rebound Host, a replay)
// can neither complete nor abort the login.
type receiver struct {
	ln   net.Listener
	srv  *http.Server
	host string // 127.0.0.1:PORT, the only Host accepted

	mu    sync.Mutex
	state string // set once the link is known
	done  bool
	got   chan callbackResult
}

type callbackResult struct {
	res *auth.AuthorizationResult
	err error
}

func listenReceiver(port int) (*receiver, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	r := &receiver{ln: ln, host: ln.Addr().String(), got: make(chan callbackResult, 1)}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go r.srv.Serve(ln)
	return r, nil
}

// redirectURL is the redirect URI registered for this flow.
func (r *receiver) redirectURL() string { return "http://" + r.host + callbackPath }

// close stops the receiver, letting a callback being answered finish.
func (r *receiver) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if r.srv.Shutdown(ctx) != nil {
		r.srv.Close()
	}
}

// expect arms the receiver for a flow's state; a second flow (after the
// server turned a kept registration down) gets one callback of its own.
func (r *receiver) expect(state string) {
	r.mu.Lock()
	if state != r.state {
		r.done = false
	}
	r.state = state
	r.mu.Unlock()
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	answer := func(status int, msg string) {
		// A length, so that the page is whole once flushed.
		h.Set("Content-Length", strconv.Itoa(len(msg)+1))
		w.WriteHeader(status)
		fmt.Fprintln(w, msg)
	}
	switch {
	case req.Method != http.MethodGet:
		h.Set("Allow", "GET")
		answer(http.StatusMethodNotAllowed, "mcpc: only GET is accepted here")
		return
	case req.Host != r.host:
		answer(http.StatusMisdirectedRequest, "mcpc: wrong host")
		return
	case req.URL.Path != callbackPath:
		answer(http.StatusNotFound, "mcpc: not found")
		return
	}
	q := req.URL.Query()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state == "" || subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(r.state)) != 1 {
		answer(http.StatusBadRequest, "mcpc: this is not the callback of the login in progress (state does not match)")
		return
	}
	if r.done {
		answer(http.StatusConflict, "mcpc: this login has already received its callback")
		return
	}
	res, err := parseCallback(q, r.state)
	if res == nil && err == nil {
		answer(http.StatusBadRequest, "mcpc: the callback has no authorization code")
		return
	}
	r.done = true
	// The browser's page is written before the flow goes on: a flow that
	// fails at once ends the process, which must not cut the page off.
	if err != nil {
		answer(http.StatusOK, "mcpc: authorization was not granted; see the terminal")
	} else {
		answer(http.StatusOK, "mcpc: authorization received; you can close this window and return to the terminal")
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	r.got <- callbackResult{res, err}
}

// parseCallback reads a callback's parameters whose state has been
// checked: an error response from the server ends the flow, a code
// completes it; neither (nil, nil) is ignored.
func parseCallback(q url.Values, state string) (*auth.AuthorizationResult, error) {
	if e := q.Get("error"); e != "" {
		return nil, &callbackError{code: e, desc: q.Get("error_description")}
	}
	code := q.Get("code")
	if code == "" {
		return nil, nil
	}
	return &auth.AuthorizationResult{Code: code, State: state, Iss: q.Get("iss")}, nil
}

// callbackError is an error response the authorization server sent back
// through the browser (RFC 6749 section 4.1.2.1).
type callbackError struct{ code, desc string }

func (e *callbackError) Error() string {
	msg := "the authorization server refused: " + e.code
	if e.desc != "" {
		msg += " (" + e.desc + ")"
	}
	return msg
}
