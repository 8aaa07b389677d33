package creds

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// wrappedHandler is an OAuth handler with its transport wrapper, as
// commands hands both to the connection.
type wrappedHandler interface {
	auth.OAuthHandler
	HTTPWrapper
}

// resource is an MCP endpoint that accepts one access token at a time:
// any other is answered 401, as a server does with a token that expired
// or was revoked early.
type resource struct {
	mu    sync.Mutex
	valid string
	srv   *httptest.Server
}

func newResource(t *testing.T) *resource {
	r := &resource{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		ok := req.Header.Get("Authorization") == "Bearer "+r.valid
		r.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte("{}"))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *resource) accept(tok string) {
	r.mu.Lock()
	r.valid = tok
	r.mu.Unlock()
}

// sendAuthorized sends one request to url as the SDK does: the handler's token, and a 401
// handed to Authorize, then the request once more. Here the retry's 401
// goes to Authorize too (the transports keep it as the verdict), so the
// handler itself is what must refuse to refresh in a loop.
func sendAuthorized(h wrappedHandler, url string) error {
	c := &http.Client{Transport: h.WrapHTTP(http.DefaultTransport)}
	ctx := context.Background()
	for range 2 {
		ts, err := h.TokenSource(ctx)
		if err != nil {
			return err
		}
		tok, err := ts.Token()
		if err != nil {
			return err
		}
		req, _ := http.NewRequest(http.MethodPost, url, nil)
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusUnauthorized {
			resp.Body.Close()
			return nil
		}
		if err := h.Authorize(ctx, req, resp); err != nil {
			return err
		}
	}
	return fmt.Errorf("the retry was refused and Authorize did not say so")
}

// A token obtained after a 401 that then works is like any other: a 401
// later (in a session's holder, hours and many requests later) is
// answered with a new token again. A 401 to the new token before it ever
// worked is final, without another refresh. Both kinds of handler: a
// stored login and a grant made at connect time.
func TestRefreshAgainAfterAcceptance(t *testing.T) {
	for _, c := range []struct {
		name string
		open func(t *testing.T) (wrappedHandler, *atomic.Int32)
		msg  string
		hint string
	}{
		{"login", func(t *testing.T) (wrappedHandler, *atomic.Int32) {
			_, o, count, _ := setup(t)
			return openTokens(t, o), count
		}, "prod rejected the stored token (HTTP 401)", "mcpc login prod"},
		{"client-credentials", openClientCredentials,
			"prod rejected the client-credentials token (HTTP 401)", "check the client's registration and the server's expected audience"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, count := c.open(t)
			res := newResource(t)
			step := func(what string, valid string, wantCount int32) {
				t.Helper()
				res.accept(valid)
				if err := sendAuthorized(h, res.srv.URL); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if n := count.Load(); n != wantCount {
					t.Fatalf("%s: %d token requests, want %d", what, n, wantCount)
				}
			}
			step("first request", "at-1", 1)
			step("401, new token, 200", "at-2", 2)
			for i := range 20 {
				step(fmt.Sprint("request ", i), "at-2", 2)
			}
			step("401 again, much later", "at-3", 3)
			// A request sent with the old token before the new one came
			// is answered 401 too: it needs no further token.
			req, _ := http.NewRequest(http.MethodPost, res.srv.URL, nil)
			req.Header.Set("Authorization", "Bearer at-2")
			if err := h.Authorize(context.Background(), req, &http.Response{StatusCode: 401, Header: http.Header{}, Body: http.NoBody}); err != nil {
				t.Fatalf("a 401 to the old token in flight: %v", err)
			}
			step("and once more", "at-4", 4)

			// Revoked for good: the new token is refused at once.
			res.accept("none")
			err := sendAuthorized(h, res.srv.URL)
			if e := fail.As(err); e == nil || e.Code != fail.AuthFailed || e.Msg != c.msg || e.Hint != c.hint {
				t.Fatalf("a 401 right after a refresh: %#v", err)
			}
			if n := count.Load(); n != 5 {
				t.Fatalf("%d token requests, want 5 (one refresh for the last 401s)", n)
			}
			// The next request carries the same unaccepted token: the
			// verdict again, with no refresh.
			if err := sendAuthorized(h, res.srv.URL); fail.As(err) == nil || fail.As(err).Msg != c.msg || count.Load() != 5 {
				t.Fatalf("the next request after the verdict: %v, %d token requests", err, count.Load())
			}
		})
	}
}

// openClientCredentials is a client-credentials handler whose issuer
// hands out at-1, at-2, … and counts its token requests.
func openClientCredentials(t *testing.T) (wrappedHandler, *atomic.Int32) {
	count := new(atomic.Int32)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/.well-known/oauth-authorization-server" {
			json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL, "token_endpoint": srv.URL + "/token"})
			return
		}
		n := count.Add(1)
		json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprint("at-", n), "token_type": "Bearer", "expires_in": 3600})
	}))
	t.Cleanup(srv.Close)
	h, err := NewClientCredentials(context.Background(), ClientCredentialsOptions{
		Grant:      Grant{Server: "prod", Resource: "https://mcp.example.com/mcp", ClientID: "cid", Issuer: srv.URL},
		ClientAuth: ClientAuth{Secret: "SECRET"}})
	if err != nil {
		t.Fatal(err)
	}
	return h, count
}
