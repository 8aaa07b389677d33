package creds

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// fakeAS is an authorization server (and identity provider at /idp) on
// loopback that records every request's path and form.
type fakeAS struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // "METHOD PATH grant_type"
	form map[string]map[string]string
	// answer is the token endpoint's JSON reply for a grant type and its
	// status (0: 200).
	answer func(grant string) (int, any)
}

func newFakeAS(t *testing.T) *fakeAS {
	f := &fakeAS{form: map[string]map[string]string{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		g := r.PostForm.Get("grant_type")
		f.mu.Lock()
		f.seen = append(f.seen, strings.TrimSpace(r.Method+" "+r.URL.Path+" "+g))
		m := map[string]string{}
		for k := range r.PostForm {
			m[k] = r.PostForm.Get(k)
		}
		if id, secret, ok := r.BasicAuth(); ok {
			m["basic"] = id + ":" + secret
		}
		if r.Header.Get("DPoP") != "" {
			m["dpop-proof"] = "yes"
		}
		f.form[r.URL.Path+" "+g] = m
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			json.NewEncoder(w).Encode(map[string]any{"issuer": f.URL, "token_endpoint": f.URL + "/token"})
		case "/.well-known/oauth-authorization-server/idp", "/.well-known/openid-configuration/idp":
			w.WriteHeader(404)
		case "/idp/.well-known/openid-configuration":
			json.NewEncoder(w).Encode(map[string]any{"issuer": f.URL + "/idp", "token_endpoint": f.URL + "/idp/token"})
		case "/token", "/idp/token":
			status, v := f.answer(g)
			if status != 0 {
				w.WriteHeader(status)
			}
			json.NewEncoder(w).Encode(v)
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAS) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// One jwt-bearer request with exactly the RFC 7523 parameters; a refusal
// is final (no second request) and its description bounded.
func TestWorkloadOneRequest(t *testing.T) {
	f := newFakeAS(t)
	long := strings.Repeat("é", 400)
	refuse := false
	f.answer = func(string) (int, any) {
		if refuse {
			return 400, map[string]string{"error": "invalid_grant", "error_description": long}
		}
		return 0, map[string]any{"access_token": "AT", "token_type": "Bearer", "expires_in": 60}
	}
	o := WorkloadOptions{Grant: Grant{Server: "ci", Resource: "https://mcp.example/mcp", Issuer: f.URL, Scopes: []string{"a", "b"}},
		AssertionEnv: "TOK", Getenv: env(map[string]string{"TOK": " JWT\n"})}
	w, err := NewWorkload(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := w.Token()
	if err != nil || tok.AccessToken != "AT" {
		t.Fatalf("%v %v", tok, err)
	}
	got := f.form["/token "+jwtBearer]
	want := map[string]string{"grant_type": jwtBearer, "assertion": "JWT", "resource": "https://mcp.example/mcp", "scope": "a b"}
	if len(got) != len(want) {
		t.Errorf("form = %v, want %v (no client_id when none is configured)", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}

	refuse = true
	w, _ = NewWorkload(context.Background(), o)
	before := len(f.requests())
	_, err = w.Token()
	e := fail.As(err)
	if e == nil || e.Code != fail.AuthFailed || !strings.HasPrefix(e.Msg, "the authorization server refused the workload token of ci: the token endpoint answered HTTP 400: invalid_grant (") {
		t.Fatalf("%#v", err)
	}
	if n := len(e.Msg); n > 500 || !strings.HasSuffix(e.Msg, "…)") {
		t.Errorf("description not bounded (%d bytes): %q", n, e.Msg)
	}
	if reqs := f.requests()[before:]; len(reqs) != 2 || reqs[1] != "POST /token "+jwtBearer {
		t.Errorf("requests after the refusal = %q, want the metadata and one token request", reqs)
	}
}

// What is missing is said before anything is contacted.
func TestWorkloadMissing(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jwt")
	os.WriteFile(empty, []byte("\n"), 0o600)
	for _, tc := range []struct {
		o    WorkloadOptions
		want string
	}{
		{WorkloadOptions{AssertionEnv: "CI_TOKEN"}, "ci needs its workload token from the environment variable CI_TOKEN, which is not set"},
		{WorkloadOptions{AssertionFile: filepath.Join(dir, "no.jwt")}, "ci needs its workload token from " + filepath.Join(dir, "no.jwt") + ", which does not exist"},
		{WorkloadOptions{AssertionFile: empty}, "ci needs its workload token from " + empty + ", which is empty"},
		{WorkloadOptions{AssertionFrom: GitHubActions}, "ci needs a GitHub Actions OIDC token, but ACTIONS_ID_TOKEN_REQUEST_URL is not set"},
	} {
		tc.o.Server, tc.o.Issuer, tc.o.Getenv = "ci", "https://as.example", env(nil)
		tc.o.HTTPClient = &http.Client{Transport: refuseTransport{t}}
		_, err := NewWorkload(context.Background(), tc.o)
		if e := fail.As(err); e == nil || e.Code != fail.AuthRequired || e.Msg != tc.want || e.Hint == "" {
			t.Errorf("%#v, want %q", err, tc.want)
		}
	}
}

// GitHub Actions is asked with the request token as bearer and the
// audience (the issuer by default) added to its URL's query.
func TestWorkloadGitHub(t *testing.T) {
	f := newFakeAS(t)
	f.answer = func(string) (int, any) { return 0, map[string]any{"access_token": "AT", "token_type": "Bearer"} }
	var gotAuth, gotQuery string
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotQuery = r.Header.Get("Authorization"), r.URL.RawQuery
		json.NewEncoder(w).Encode(map[string]string{"value": "GH-JWT"})
	}))
	defer gh.Close()
	w, err := NewWorkload(context.Background(), WorkloadOptions{Grant: Grant{Server: "ci", Resource: "https://mcp.example/mcp", Issuer: f.URL}, AssertionFrom: GitHubActions,
		Getenv: env(map[string]string{ghURLVar: gh.URL + "/token?api-version=2.0", ghTokenVar: "REQ"})})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Token(); err != nil {
		t.Fatal(err)
	}
	if gotAuth != "bearer REQ" || gotQuery != "api-version=2.0&audience="+strings.ReplaceAll(strings.ReplaceAll(f.URL, ":", "%3A"), "/", "%2F") {
		t.Errorf("GitHub got Authorization %q, query %q", gotAuth, gotQuery)
	}
	if a := f.form["/token "+jwtBearer]["assertion"]; a != "GH-JWT" {
		t.Errorf("assertion = %q", a)
	}
}
