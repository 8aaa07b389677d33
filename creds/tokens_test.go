package creds

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// tokenEndpoint answers refresh requests with rotated tokens, counting
// them; a refresh token is good once.
func tokenEndpoint(t *testing.T, count *atomic.Int32) *httptest.Server {
	var seq atomic.Int32
	good := map[string]bool{"rt-0": true}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		count.Add(1)
		if r.PostForm.Get("grant_type") != "refresh_token" || r.PostForm.Get("resource") != "https://mcp.example.com/mcp" || r.PostForm.Get("client_id") != "cid" {
			t.Errorf("unexpected token request: %v", r.PostForm)
		}
		w.Header().Set("Content-Type", "application/json")
		rt := r.PostForm.Get("refresh_token")
		if !good[rt] {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		delete(good, rt)
		n := seq.Add(1)
		next := "rt-" + string(rune('0'+n))
		good[next] = true
		json.NewEncoder(w).Encode(map[string]any{"access_token": "at-" + string(rune('0'+n)), "token_type": "Bearer", "expires_in": 3600, "refresh_token": next})
	}))
}

// setup starts a token endpoint and stores a stale login for it; count
// counts the endpoint's requests.
func setup(t *testing.T) (st *MemStore, o TokensOptions, count *atomic.Int32, now time.Time) {
	count = new(atomic.Int32)
	srv := tokenEndpoint(t, count)
	t.Cleanup(srv.Close)
	now = time.Now()
	st = NewMemStore()
	ref := RefFor("prod", "https://mcp.example.com/mcp", "mcpc login prod", nil)
	rec := &Record{TokenURL: srv.URL, ClientID: "cid", Resource: "https://mcp.example.com/mcp",
		AccessToken: "at-0", RefreshToken: "rt-0", Expiry: now.Add(-time.Minute)}
	if err := Save(context.Background(), st, ref, rec, now); err != nil {
		t.Fatal(err)
	}
	return st, TokensOptions{Store: st, Ref: ref, LockDir: t.TempDir(), Now: func() time.Time { return now }}, count, now
}

func openTokens(t *testing.T, o TokensOptions) *Tokens {
	tk, err := OpenTokens(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestRefreshOnceAndAdopt(t *testing.T) {
	st, o, count, _ := setup(t)
	ctx := context.Background()
	// Two "processes" read the same stale record before either refreshes.
	a, b := openTokens(t, o), openTokens(t, o)
	ta, err := a.Token()
	if err != nil || ta.AccessToken != "at-1" {
		t.Fatalf("first refresh: %v, %v", ta, err)
	}
	tb, err := b.Token()
	if err != nil || tb.AccessToken != "at-1" {
		t.Fatalf("the second process should adopt the stored token: %v, %v", tb, err)
	}
	if n := count.Load(); n != 1 {
		t.Fatalf("%d refresh requests, want 1", n)
	}
	rec, _ := Load(ctx, st, o.Ref)
	if rec.RefreshToken != "rt-1" {
		t.Fatalf("the rotated refresh token was not stored: %q", rec.RefreshToken)
	}
}

func TestRefreshRefused(t *testing.T) {
	st, o, _, now := setup(t)
	rec, _ := Load(context.Background(), st, o.Ref)
	rec.RefreshToken = "rt-revoked"
	Save(context.Background(), st, o.Ref, rec, now)
	tk := openTokens(t, o)
	_, err := tk.Token()
	e := fail.As(err)
	if e == nil || e.Code != fail.AuthRequired || e.Hint != "mcpc login prod" ||
		e.Msg != "the stored login for prod has expired or was revoked (the refresh was refused: invalid_grant)" {
		t.Fatalf("refused refresh: %#v", err)
	}
}

func TestRejectedTwice(t *testing.T) {
	_, o, count, _ := setup(t)
	tk := openTokens(t, o)
	tok, err := tk.Token()
	if err != nil {
		t.Fatal(err)
	}
	resp := func() *http.Response {
		return &http.Response{StatusCode: 401, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}
	}
	req, _ := http.NewRequest("POST", "https://mcp.example.com/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	// The first 401 refreshes (the server may have revoked it early) …
	if err := tk.Authorize(context.Background(), req, resp()); err != nil {
		t.Fatalf("first 401: %v", err)
	}
	if n := count.Load(); n != 2 {
		t.Fatalf("%d refresh requests, want 2", n)
	}
	// … a 401 to the refreshed token ends it.
	req.Header.Set("Authorization", "Bearer at-2")
	err = tk.Authorize(context.Background(), req, resp())
	if e := fail.As(err); e == nil || e.Code != fail.AuthFailed || e.Msg != "prod rejected the stored token (HTTP 401)" || e.Hint != "mcpc login prod" {
		t.Fatalf("second 401: %#v", err)
	}
}

type failingHandler struct{ calls int }

func (f *failingHandler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "at"}), nil
}

func (f *failingHandler) Authorize(context.Context, *http.Request, *http.Response) error {
	f.calls++
	return fail.New(fail.AuthFailed, "mcpc login prod", "prod rejected the stored token (HTTP 401)")
}

func TestStickyVerdict(t *testing.T) {
	f := &failingHandler{}
	h := Sticky(f)
	ts, err := h.TokenSource(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := ts.Token(); err != nil || tok.AccessToken != "at" {
		t.Fatalf("before a verdict: %v, %v", tok, err)
	}
	resp := &http.Response{StatusCode: 401, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}
	first := h.Authorize(context.Background(), nil, resp)
	if fail.As(first) == nil {
		t.Fatalf("Authorize: %v", first)
	}
	// Later requests (the SDK's legacy retry) fail with the same verdict
	// before anything is sent, and the handler is not asked again.
	if _, err := h.TokenSource(context.Background()); err != first {
		t.Fatalf("TokenSource after the verdict: %v", err)
	}
	if _, err := ts.Token(); err != first {
		t.Fatalf("Token after the verdict: %v", err)
	}
	resp.Body = io.NopCloser(strings.NewReader(""))
	if err := h.Authorize(context.Background(), nil, resp); err != first || f.calls != 1 {
		t.Fatalf("second Authorize: %v after %d calls", err, f.calls)
	}
}

// countingStore counts the keyring reads.
type countingStore struct {
	Store
	gets atomic.Int32
}

func (c *countingStore) Get(ctx context.Context, key string) ([]byte, error) {
	c.gets.Add(1)
	return c.Store.Get(ctx, key)
}

// A verdict on a stored login lasts while that login is stored: the
// SDK's retry meets it, but once the user logs in again (a session's
// holder outlives the verdict) the new login is served, signed with the
// DPoP key it is bound to. While the verdict stands, the keyring is read
// at most once per renewEvery however many requests meet it.
func TestStickyVerdictEndsWithNewLogin(t *testing.T) {
	mem, o, _, now := setup(t)
	st := &countingStore{Store: mem}
	o.Store = st
	clock := now
	o.Now = func() time.Time { return clock }
	ctx := context.Background()
	rec, _ := Load(ctx, st, o.Ref)
	rec.RefreshToken = "rt-revoked"
	Save(ctx, st, o.Ref, rec, now)
	tk := openTokens(t, o)
	h := Sticky(tk)
	ts, err := h.TokenSource(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, first := ts.Token()
	if fail.CodeOf(first) != fail.AuthRequired {
		t.Fatalf("refused refresh: %v", first)
	}
	meet := func(what string) {
		t.Helper()
		for range 100 {
			if _, err := h.TokenSource(ctx); err != first {
				t.Fatalf("%s: %v, want the verdict", what, err)
			}
			if _, err := ts.Token(); err != first {
				t.Fatalf("%s: %v, want the verdict", what, err)
			}
		}
	}
	before := st.gets.Load()
	meet("with the same login stored")
	if n := st.gets.Load() - before; n != 1 {
		t.Fatalf("200 requests meeting the verdict within %v read the keyring %d times, want 1", renewEvery, n)
	}
	clock = clock.Add(renewEvery)
	meet("with the same login stored, later")
	if n := st.gets.Load() - before; n != 2 {
		t.Fatalf("after %v: %d keyring reads in all, want 2", renewEvery, n)
	}

	// The user logs in again: a new key, tokens bound to it.
	key, _ := NewDPoP(nil)
	fresh := *rec
	fresh.AccessToken, fresh.RefreshToken, fresh.Expiry, fresh.TokenType = "at-new", "rt-new", now.Add(time.Hour), "DPoP"
	if fresh.DPoPKey, err = key.encodeKey(); err != nil {
		t.Fatal(err)
	}
	if err := Save(ctx, st, o.Ref, &fresh, now); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(renewEvery - time.Millisecond)
	meet("within the bound of the last read")
	clock = clock.Add(time.Millisecond)
	if _, err := h.TokenSource(ctx); err != nil {
		t.Fatalf("after a new login: %v", err)
	}
	if tok, err := ts.Token(); err != nil || tok.AccessToken != "at-new" {
		t.Fatalf("after a new login: %v, %v", tok, err)
	}
	if !tk.dpop.Active() || tk.dpop.Thumbprint() != key.Thumbprint() {
		t.Fatal("the new login's tokens are not signed with its key")
	}
}

// Only scope names of RFC 6749's alphabet are taken from a challenge,
// each once.
func TestScopeTokens(t *testing.T) {
	got := scopeTokens("files:read \xbc \x94 a\"b c\\d files:read  e\u00e9 mcp:write\t")
	if want := []string{"files:read", "mcp:write"}; !slices.Equal(got, want) {
		t.Errorf("scopeTokens = %q, want %q", got, want)
	}
}

// A challenge that names no valid scope still ends in auth_failed, saying
// so, and remembers nothing.
func TestStepUpNoValidScope(t *testing.T) {
	st, o, _, now := setup(t)
	rec, _ := Load(context.Background(), st, o.Ref)
	rec.Expiry = now.Add(time.Hour)
	Save(context.Background(), st, o.Ref, rec, now)
	tk := openTokens(t, o)
	req, _ := http.NewRequest("POST", "https://mcp.example.com/mcp", nil)
	resp := &http.Response{StatusCode: 403, Header: http.Header{"Www-Authenticate": {"Bearer error=\"insufficient_scope\", scope=\"\xbc \x1b[31m\""}}, Body: io.NopCloser(strings.NewReader(""))}
	err := tk.Authorize(context.Background(), req, resp)
	e := fail.As(err)
	if e == nil || e.Code != fail.AuthFailed || e.Msg != "prod needs more permissions than the stored login grants (insufficient_scope, naming no valid scope)" ||
		e.Hint != "log in again, or ask the server's operator which scopes it needs: mcpc login prod" {
		t.Fatalf("403 naming no valid scope: %#v", err)
	}
	if after, _ := Load(context.Background(), st, o.Ref); len(after.Challenged) != 0 {
		t.Errorf("remembered %q", after.Challenged)
	}
}

// A failing token endpoint ends the refresh in auth_failed, saying how it
// failed but never quoting its body, and the stored login is kept.
func TestRefreshEndpointFailures(t *testing.T) {
	for _, c := range []struct {
		name, ct string
		status   int
		body     string
		want     string
	}{
		{"server error", "text/html", 500, "<html>echo: rt-0</html>", "the token endpoint answered HTTP 500"},
		{"oauth error", "application/json", 400, `{"error":"invalid_request","error_description":"no"}`, "the token endpoint answered HTTP 400: invalid_request (no)"},
		{"no access token", "application/json", 200, `{"token_type":"Bearer","refresh_token":"rt-x"}`, "the token endpoint answered without an access_token"},
		{"not JSON", "text/html", 200, "<html>echo: rt-0</html>", "the token endpoint answered HTTP 200 with a body that is not JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, o, _, now := setup(t)
			as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", c.ct)
				w.WriteHeader(c.status)
				io.WriteString(w, c.body)
			}))
			t.Cleanup(as.Close)
			rec, _ := Load(context.Background(), st, o.Ref)
			rec.TokenURL = as.URL
			Save(context.Background(), st, o.Ref, rec, now)
			_, err := openTokens(t, o).Token()
			e := fail.As(err)
			if e == nil || e.Code != fail.AuthFailed || e.Hint != "mcpc login prod" || e.Msg != "cannot refresh the token for prod: "+c.want {
				t.Fatalf("got %#v", err)
			}
			if after, _ := Load(context.Background(), st, o.Ref); after.AccessToken != "at-0" || after.RefreshToken != "rt-0" {
				t.Errorf("the stored login changed: %q, %q", after.AccessToken, after.RefreshToken)
			}
		})
	}
}

// A 403 that asks for no scope is the account's permissions, not the
// token: auth_failed, and nothing is refreshed.
func TestForbidden(t *testing.T) {
	_, o, count, _ := setup(t)
	req, _ := http.NewRequest("POST", "https://mcp.example.com/mcp", nil)
	resp := &http.Response{StatusCode: 403, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}
	err := openTokens(t, o).Authorize(context.Background(), req, resp)
	e := fail.As(err)
	if e == nil || e.Code != fail.AuthFailed || e.Msg != "prod refused the stored token (HTTP 403)" ||
		e.Hint != "check the account's permissions, or log in again with: mcpc login prod" {
		t.Fatalf("403: %#v", err)
	}
	if n := count.Load(); n != 0 {
		t.Errorf("%d refresh requests, want 0", n)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A writer that does not take the record's lock (an mcpc from before
// logins and logouts took it) replaces or removes the record while the
// token endpoint answers a refresh: what it wrote stands, the refreshed
// old login is not stored over it, and a new login is served, signing
// with its DPoP key.
func TestRefreshKeepsWhatChangedMeanwhile(t *testing.T) {
	key, err := NewDPoP(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		meddle func(ctx context.Context, st *MemStore, o TokensOptions, rec Record, now time.Time)
		want   string // the token served; "": the error of no login
	}{
		{"a new login", func(ctx context.Context, st *MemStore, o TokensOptions, rec Record, now time.Time) {
			rec.AccessToken, rec.RefreshToken, rec.Expiry, rec.TokenType = "at-new", "rt-new", now.Add(time.Hour), "DPoP"
			rec.DPoPKey, _ = key.encodeKey()
			Save(ctx, st, o.Ref, &rec, now.Add(time.Second))
		}, "at-new"},
		{"a logout", func(ctx context.Context, st *MemStore, o TokensOptions, _ Record, _ time.Time) {
			st.Delete(ctx, o.Ref.Key)
		}, ""},
	} {
		st, o, count, now := setup(t)
		ctx := context.Background()
		old, _ := Load(ctx, st, o.Ref)
		o.HTTPClient = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			c.meddle(ctx, st, o, *old, now)
			return http.DefaultTransport.RoundTrip(r)
		})}
		tk := openTokens(t, o)
		tok, err := tk.Token()
		stored, loadErr := Load(ctx, st, o.Ref)
		switch {
		case count.Load() != 1:
			t.Errorf("%s: %d refresh requests, want 1", c.name, count.Load())
		case c.want == "" && (fail.CodeOf(err) != fail.AuthRequired || err.Error() != "not logged in to prod" || !errors.Is(loadErr, ErrNotFound)):
			t.Errorf("%s: %v, %v; the record: %+v, %v", c.name, tok, err, stored, loadErr)
		case c.want != "" && (err != nil || tok.AccessToken != c.want || loadErr != nil || stored.AccessToken != c.want):
			t.Errorf("%s: %v, %v; the record: %+v, %v", c.name, tok, err, stored, loadErr)
		case c.want != "" && (!tk.dpop.Active() || tk.dpop.Thumbprint() != key.Thumbprint()):
			t.Errorf("%s: the new login's token is not signed with its key", c.name)
		}
	}
}

// A process whose token went stale finds, under the lock, a new login
// the user made meanwhile: it serves that one, signing with its DPoP key,
// and asks the token endpoint nothing.
func TestRefreshAdoptsNewLoginWithItsKey(t *testing.T) {
	st, o, count, now := setup(t)
	ctx := context.Background()
	tk := openTokens(t, o)
	key, err := NewDPoP(nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := Load(ctx, st, o.Ref)
	rec.AccessToken, rec.RefreshToken, rec.Expiry, rec.TokenType = "at-new", "rt-new", now.Add(time.Hour), "DPoP"
	if rec.DPoPKey, err = key.encodeKey(); err != nil {
		t.Fatal(err)
	}
	if err := Save(ctx, st, o.Ref, rec, now); err != nil {
		t.Fatal(err)
	}
	tok, err := tk.Token()
	if err != nil || tok.AccessToken != "at-new" || count.Load() != 0 {
		t.Fatalf("%v, %v after %d refresh requests; want the new login's token and none", tok, err, count.Load())
	}
	if !tk.dpop.Active() || tk.dpop.Thumbprint() != key.Thumbprint() {
		t.Fatal("the new login's token is not signed with its key")
	}
}
