package creds

import (
	"net/http"
	"strings"
	"sync"
)

// answered is the token an OAuth handler obtained in answer to a 401, until
// the server is seen to accept it. A 401 to a request that carried it is
// the server's verdict: the new token did not help, and another refresh
// would only loop. Once a request with it is answered otherwise, the token
// has worked; a later 401 (it expired or was revoked early, perhaps hours
// later, in a session's holder) is answered with a new token again. Keyed
// by the token rather than by time or by request, it holds for the SDK's
// requests and mcpc's own (which send the retry through the same wrapped
// transport) alike, and for requests in flight together.
type answered struct {
	mu  sync.Mutex
	tok string // "": no token awaits the server's acceptance
}

// bearer is the access token req carries ("" when none, or no request).
func bearer(req *http.Request) string {
	if req == nil {
		return ""
	}
	tok, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	return tok
}

// final reports whether a 401 to a request that carried sent is the
// verdict on a token obtained in answer to an earlier 401.
func (a *answered) final(sent string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return sent != "" && sent == a.tok
}

// set records tok as obtained in answer to a 401.
func (a *answered) set(tok string) {
	a.mu.Lock()
	a.tok = tok
	a.mu.Unlock()
}

// accepted forgets sent when it is the token awaiting acceptance.
func (a *answered) accepted(sent string) {
	a.mu.Lock()
	if sent != "" && sent == a.tok {
		a.tok = ""
	}
	a.mu.Unlock()
}

// wrap watches the MCP requests: any answer but a 401 to one that carried
// the awaited token accepts it. It sits outside the DPoP wrapper, where
// the token is still a Bearer header.
func (a *answered) wrap(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return watchAccepted{a, base}
}

type watchAccepted struct {
	a    *answered
	base http.RoundTripper
}

func (w watchAccepted) RoundTrip(req *http.Request) (*http.Response, error) {
	sent := bearer(req)
	resp, err := w.base.RoundTrip(req)
	if err == nil && resp.StatusCode != http.StatusUnauthorized {
		w.a.accepted(sent)
	}
	return resp, err
}
