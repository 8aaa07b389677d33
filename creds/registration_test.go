package creds

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

func TestRegistrationUsable(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	r := &Registration{RedirectURIs: []string{"http://127.0.0.1:40000/callback"}}
	for _, c := range []struct {
		redirect string
		want     bool
	}{
		{"http://127.0.0.1:40000/callback", true},
		{"http://127.0.0.1:51234/callback", true}, // RFC 8252: any loopback port
		{"http://127.0.0.1:51234/elsewhere", false},
		{"http://localhost:40000/callback", false},
		{"https://127.0.0.1:40000/callback", false},
	} {
		if got := r.usable([]string{c.redirect}, now); got != c.want {
			t.Errorf("usable(%s) = %v, want %v", c.redirect, got, c.want)
		}
	}
	r.SecretExpires = now.Add(30 * time.Second)
	if r.usable(r.RedirectURIs, now) {
		t.Error("a registration whose secret expires within a minute is usable")
	}
}

func TestForgetRegistrationOnlyItsClient(t *testing.T) {
	ctx := context.Background()
	st := NewMemStore()
	if err := saveRegistration(ctx, st, &Registration{Issuer: "https://as.example.com", ClientID: "a", RedirectURIs: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	if gone, err := ForgetRegistration(ctx, st, "https://as.example.com/", "b"); gone || err != nil {
		t.Fatalf("another client's registration was forgotten: %v %v", gone, err)
	}
	if gone, err := ForgetRegistration(ctx, st, "https://as.example.com/", "a"); !gone || err != nil {
		t.Fatalf("the registration was not forgotten: %v %v", gone, err)
	}
	if _, err := LoadRegistration(ctx, st, "https://as.example.com"); err != ErrNotFound {
		t.Fatalf("LoadRegistration after forgetting: %v", err)
	}
}

// The login's transport answers a registration request from the kept
// registration when there is one, and keeps the one the server makes.
func TestLoginTransportKeepsRegistration(t *testing.T) {
	var registrations atomic.Int32
	srv := testAS(t, func(w http.ResponseWriter, r *http.Request) {
		n := registrations.Add(1)
		var md oauthex.ClientRegistrationMetadata
		json.NewDecoder(r.Body).Decode(&md)
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"client_id": fmt.Sprintf("client-%d", n), "redirect_uris": md.RedirectURIs, "token_endpoint_auth_method": "none"})
	})
	st := NewMemStore()
	register := func(redirect string) string {
		t.Helper()
		hc := loginClient(t, srv, st)
		md := &oauthex.ClientRegistrationMetadata{RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none"}
		got, err := oauthex.RegisterClient(context.Background(), srv.URL+"/register", md, hc)
		if err != nil {
			t.Fatal(err)
		}
		return got.ClientID
	}
	first := register("http://127.0.0.1:40000/callback")
	if again := register("http://127.0.0.1:40001/callback"); again != first {
		t.Errorf("second registration got %s, want the kept %s", again, first)
	}
	if n := registrations.Load(); n != 1 {
		t.Errorf("%d registration requests reached the server, want 1", n)
	}
	// A redirect that is no loopback variant of the registered one needs
	// a registration of its own, which replaces the kept one.
	if other := register("http://localhost:40000/callback"); other == first {
		t.Errorf("a registration for another redirect URI was reused")
	}
	if n := registrations.Load(); n != 2 {
		t.Errorf("%d registration requests reached the server, want 2", n)
	}
}

// A registration response the SDK cannot decode is refused before the
// SDK sees it, since the SDK quotes such a body whole in its error and
// the body may hold the client secret.
func TestLoginTransportHidesUndecodableRegistration(t *testing.T) {
	srv := testAS(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"client_id":"c","client_secret":"s3cret-value","client_secret_expires_at":"never"}`)
	})
	hc := loginClient(t, srv, NewMemStore())
	md := &oauthex.ClientRegistrationMetadata{RedirectURIs: []string{"http://127.0.0.1:40000/callback"}, TokenEndpointAuthMethod: "none"}
	_, err := oauthex.RegisterClient(context.Background(), srv.URL+"/register", md, hc)
	if err == nil {
		t.Fatal("an undecodable registration response was accepted")
	}
	if strings.Contains(err.Error(), "s3cret-value") {
		t.Errorf("the error quotes the client secret: %v", err)
	}
	if !strings.Contains(err.Error(), "its body is not shown, since it may hold a client secret") {
		t.Errorf("error = %v, want the reason the body is hidden", err)
	}
}

// testAS starts an authorization server whose metadata names its
// /register endpoint, answered by register.
func testAS(t *testing.T, register http.HandlerFunc) *httptest.Server {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": srv.URL, "registration_endpoint": srv.URL + "/register"})
	})
	mux.HandleFunc("POST /register", register)
	return srv
}

// loginClient is an HTTP client through a login's transport that has
// read srv's metadata, as the SDK reads it before registering.
func loginClient(t *testing.T, srv *httptest.Server, st Store) *http.Client {
	t.Helper()
	l := &Login{o: LoginOptions{Store: st, Now: time.Now}}
	hc := &http.Client{Transport: &loginTransport{l: l}}
	resp, err := hc.Get(srv.URL + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return hc
}
