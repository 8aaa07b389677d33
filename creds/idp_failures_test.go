package creds

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// idp is an identity provider whose discovery document is meta (the
// server's URL filled in; nil: not valid JSON) and whose token endpoint
// answers with token.
func idp(t *testing.T, meta func(base string) map[string]string, token http.HandlerFunc) *httptest.Server {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		if m := meta(srv.URL); m != nil {
			json.NewEncoder(w).Encode(m)
			return
		}
		io.WriteString(w, `{"issuer": `)
	})
	mux.HandleFunc("POST /token", token)
	return srv
}

func fullMeta(base string) map[string]string {
	return map[string]string{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token"}
}

func refuseToken(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	io.WriteString(w, `{"error":"invalid_grant"}`)
}

// redirectBack plays the browser: it sends the login's callback with the
// query (and the login's state) once the link is shown.
func redirectBack(query url.Values) func(string) {
	return func(link string) {
		u, _ := url.Parse(link)
		back, _ := url.Parse(u.Query().Get("redirect_uri"))
		query.Set("state", u.Query().Get("state"))
		back.RawQuery = query.Encode()
		go func() {
			if resp, err := http.Get(back.String()); err == nil {
				resp.Body.Close()
			}
		}()
	}
}

// Each way an identity provider fails the enterprise login is named, with
// the server it was for and what to check; nothing is stored.
func TestIdPLoginFailures(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	good := idp(t, fullMeta, refuseToken)
	noAuth := idp(t, func(base string) map[string]string {
		m := fullMeta(base)
		delete(m, "authorization_endpoint")
		return m
	}, refuseToken)
	notJSON := idp(t, func(string) map[string]string { return nil }, refuseToken)
	for _, c := range []struct {
		name   string
		o      IdPLoginOptions
		code   fail.Code
		prefix string // the message, up to the cause it ends with
	}{
		{"the user refuses", IdPLoginOptions{Issuer: good.URL, ShowLink: redirectBack(url.Values{"error": {"access_denied"}})},
			fail.AuthFailed, "cannot log in to ent at the identity provider: the authorization server refused: access_denied"},
		{"the code is refused", IdPLoginOptions{Issuer: good.URL, ShowLink: redirectBack(url.Values{"code": {"c"}})},
			fail.AuthFailed, "the identity provider refused the login code for ent: "},
		{"no authorization endpoint", IdPLoginOptions{Issuer: noAuth.URL},
			fail.AuthFailed, "the identity provider " + noAuth.URL + " names no usable authorization_endpoint in its metadata"},
		{"a plain-http token endpoint", IdPLoginOptions{Issuer: good.URL, TokenEndpoint: "http://idp.example/token"},
			fail.Config, "ent: invalid identity provider token endpoint"},
		{"no identity provider there", IdPLoginOptions{Issuer: gone.URL},
			fail.Connection, "cannot fetch the metadata of the identity provider " + gone.URL + ": "},
		{"metadata that is not JSON", IdPLoginOptions{Issuer: notJSON.URL},
			fail.AuthFailed, "the metadata of the identity provider " + notJSON.URL + " is not valid JSON: "},
	} {
		c.o.Ref, c.o.ClientID, c.o.Note = Ref{Server: "ent"}, "idp-client", func(string) {}
		if c.o.ShowLink == nil {
			c.o.ShowLink = func(string) { t.Errorf("%s: a link was shown", c.name) }
		}
		rec, err := IdPLogin(ctx, c.o)
		if e := fail.As(err); rec != nil || e == nil || e.Code != c.code || !strings.HasPrefix(e.Msg, c.prefix) {
			t.Errorf("%s: %v, %v (%s), want %q… (%s)", c.name, rec, err, fail.CodeOf(err), c.prefix, c.code)
		}
	}
}

// A refresh of the stored ID token that fails other than invalid_grant,
// or brings an ID token that does not pass the checks, names the server
// and the login that makes a new one.
func TestStoredIDTokenRefreshFailures(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	ref := RefFor("ent", "https://mcp.example.com/mcp", "mcpc login ent", nil)
	for _, c := range []struct {
		name  string
		token http.HandlerFunc
		code  fail.Code
		want  string
	}{
		{"the provider fails", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) },
			fail.AuthFailed, "cannot refresh the ID token for ent at the identity provider: "},
		{"the new ID token is not one", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"access_token":"at","token_type":"Bearer","id_token":"not-a-jwt"}`)
		}, fail.AuthRequired, "the identity provider's refreshed ID token for ent is refused: "},
	} {
		srv := httptest.NewServer(c.token)
		st := NewMemStore()
		rec := &Record{Issuer: "https://idp.example", TokenURL: srv.URL, ClientID: "idp-client", IDToken: "old", RefreshToken: "rt", Expiry: now.Add(-time.Minute)}
		if err := Save(ctx, st, ref, rec, now); err != nil {
			t.Fatal(err)
		}
		_, err := storedIDToken(ctx, idTokenOptions{Store: st, Ref: ref, LockDir: t.TempDir(), HTTPClient: srv.Client(), Now: func() time.Time { return now }})
		if e := fail.As(err); e == nil || e.Code != c.code || e.Hint != "mcpc login ent" || !strings.HasPrefix(e.Msg, c.want) {
			t.Errorf("%s: %v (%s), want %q… (%s)", c.name, err, fail.CodeOf(err), c.want, c.code)
		}
		srv.Close()
	}
}
