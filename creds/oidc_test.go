package creds

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// The ID token checks of an enterprise login (OpenID Connect Core
// 3.1.3.7): each wrong claim is refused with what is wrong.
func TestCheckIDToken(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	exp := now.Add(time.Hour)
	mint := func(c jwt.MapClaims) string {
		base := jwt.MapClaims{"iss": "https://idp.example", "aud": []string{"other", "idp-client"}, "sub": "u", "exp": exp.Unix(), "nonce": "n-1"}
		for k, v := range c {
			if v == nil {
				delete(base, k)
			} else {
				base[k] = v
			}
		}
		s, err := jwt.NewWithClaims(jwt.SigningMethodES256, base).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name, raw, nonce, want string
	}{
		{"good", mint(nil), "n-1", ""},
		{"refresh without nonce", mint(jwt.MapClaims{"nonce": nil}), "", ""},
		{"audience string", mint(jwt.MapClaims{"aud": "idp-client"}), "n-1", ""},
		{"none", "", "n-1", `the token response has no id_token (is "openid" a scope the identity provider grants this client?)`},
		{"not a jwt", "abc.def", "n-1", "the id_token is not a JWT"},
		{"issuer", mint(jwt.MapClaims{"iss": "https://idp.example/"}), "n-1", `its issuer is "https://idp.example/", not "https://idp.example"`},
		{"audience", mint(jwt.MapClaims{"aud": "other-client"}), "n-1", `its audience "other-client" does not include "idp-client"`},
		{"no expiry", mint(jwt.MapClaims{"exp": nil}), "n-1", "it has no expiry"},
		{"expired", mint(jwt.MapClaims{"exp": now.Unix()}), "n-1", "it expired at 2027-01-15T08:00:00Z"},
		{"nonce", mint(jwt.MapClaims{"nonce": "n-2"}), "n-1", "its nonce is not the one this login sent"},
		{"nonce missing", mint(jwt.MapClaims{"nonce": nil}), "n-1", "its nonce is not the one this login sent"},
	} {
		got, err := checkIDToken(tc.raw, "https://idp.example", "idp-client", tc.nonce, now)
		switch {
		case tc.want == "" && (err != nil || !got.Equal(exp)):
			t.Errorf("%s: got %v, %v", tc.name, got, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// An enterprise login's expired ID token is refreshed at the identity
// provider once, the rotated refresh token stored; a fresh one is used as
// it is; a refused refresh asks for the login again.
func TestStoredIDTokenRefresh(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var count atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		count.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if r.PostForm.Get("grant_type") != "refresh_token" || r.PostForm.Get("refresh_token") != "rt-0" || r.PostForm.Get("client_id") != "idp-client" {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		id, _ := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"iss": "https://idp.example", "aud": "idp-client", "exp": now.Add(time.Hour).Unix()}).SignedString(key)
		json.NewEncoder(w).Encode(map[string]any{"access_token": "at", "token_type": "Bearer", "id_token": id, "refresh_token": "rt-1"})
	}))
	defer srv.Close()
	ctx := context.Background()
	st := NewMemStore()
	ref := RefFor("ent", "https://mcp.example.com/mcp", "mcpc login ent", nil)
	save := func(rt string) {
		rec := &Record{Issuer: "https://idp.example", TokenURL: srv.URL, ClientID: "idp-client", IDToken: "old", RefreshToken: rt, Expiry: now.Add(-time.Minute)}
		if err := Save(ctx, st, ref, rec, now); err != nil {
			t.Fatal(err)
		}
	}
	save("rt-0")
	o := idTokenOptions{Store: st, Ref: ref, LockDir: t.TempDir(), HTTPClient: srv.Client(), Now: func() time.Time { return now }}
	first, err := storedIDToken(ctx, o)
	if err != nil || !strings.HasPrefix(first, "eyJ") {
		t.Fatalf("refresh: %q, %v", first, err)
	}
	again, err := storedIDToken(ctx, o)
	if err != nil || again != first || count.Load() != 1 {
		t.Fatalf("a fresh ID token is used as it is: %q, %v, %d requests", again, err, count.Load())
	}
	if rec, _ := Load(ctx, st, ref); rec.RefreshToken != "rt-1" || !rec.Expiry.After(now) {
		t.Fatalf("stored: %+v", rec)
	}
	save("rt-spent")
	_, err = storedIDToken(ctx, o)
	if e := fail.As(err); e == nil || e.Code != fail.AuthRequired || e.Hint != "mcpc login ent" ||
		e.Msg != "the identity provider login for ent has expired or was revoked (the refresh was refused: invalid_grant)" {
		t.Fatalf("refused refresh: %#v", err)
	}
	// An expired ID token kept without a refresh token asks for the login
	// again, contacting nothing.
	save("")
	before := count.Load()
	_, err = storedIDToken(ctx, o)
	if e := fail.As(err); e == nil || e.Code != fail.AuthRequired || e.Hint != "mcpc login ent" ||
		e.Msg != "the ID token stored for ent has expired" || count.Load() != before {
		t.Fatalf("no refresh token: %#v, %d requests", err, count.Load()-before)
	}
	if _, err := storedIDToken(ctx, idTokenOptions{Store: NewMemStore(), Ref: ref, Now: time.Now}); fail.CodeOf(err) != fail.AuthRequired || fail.As(err).Hint != "mcpc login ent" {
		t.Fatalf("no login: %v", err)
	}
}

// A redirect whose RFC 9207 iss names another issuer than "idp.issuer" is
// refused (a mix-up) before the code is sent anywhere, and nothing is kept.
func TestIdPLoginRefusesAnotherIssuer(t *testing.T) {
	var exchanged atomic.Int32
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": srv.URL, "authorization_endpoint": srv.URL + "/authorize", "token_endpoint": srv.URL + "/token"})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) { exchanged.Add(1) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rec, err := IdPLogin(ctx, IdPLoginOptions{
		Ref: Ref{Server: "ent"}, Issuer: srv.URL, ClientID: "idp-client",
		ShowLink: func(link string) {
			u, _ := url.Parse(link)
			q := u.Query()
			back, _ := url.Parse(q.Get("redirect_uri"))
			back.RawQuery = url.Values{"code": {"c"}, "state": {q.Get("state")}, "iss": {"https://evil.example"}}.Encode()
			go func() {
				if resp, err := http.Get(back.String()); err == nil {
					resp.Body.Close()
				}
			}()
		},
		Note: func(string) {},
	})
	e, ok := err.(*fail.Error)
	if rec != nil || !ok || e.Code != fail.AuthFailed || e.Hint != `check "idp.issuer"` ||
		e.Msg != `cannot log in to ent: the authorization response comes from the issuer "https://evil.example", not "`+srv.URL+`"` {
		t.Fatalf("%v %#v", rec, err)
	}
	if n := exchanged.Load(); n != 0 {
		t.Fatalf("the code was exchanged %d times", n)
	}
}
