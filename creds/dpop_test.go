package creds

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// parseProof verifies a proof with the key in its own jwk header, as a
// server does, and returns its header and claims.
func parseProof(t *testing.T, proof string) (map[string]any, jwt.MapClaims) {
	t.Helper()
	claims := jwt.MapClaims{}
	tok, err := jwt.ParseWithClaims(proof, claims, func(tok *jwt.Token) (any, error) {
		jwk, _ := tok.Header["jwk"].(map[string]any)
		x, _ := base64.RawURLEncoding.DecodeString(jwk["x"].(string))
		y, _ := base64.RawURLEncoding.DecodeString(jwk["y"].(string))
		return ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	}, jwt.WithValidMethods([]string{"ES256"}))
	if err != nil || !tok.Valid {
		t.Fatalf("proof does not verify: %v", err)
	}
	return tok.Header, claims
}

func TestDPoPProof(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	d, err := NewDPoP(func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("https://user:pw@mcp.example.com:8443/a/mcp?token=x#frag")
	p1, err := d.Proof("POST", u, "the-token", "n-1")
	if err != nil {
		t.Fatal(err)
	}
	h, c := parseProof(t, p1)
	if h["typ"] != "dpop+jwt" || h["alg"] != "ES256" {
		t.Errorf("header %v", h)
	}
	jwk := h["jwk"].(map[string]any)
	if _, ok := jwk["d"]; ok || jwk["kty"] != "EC" || jwk["crv"] != "P-256" {
		t.Errorf("jwk %v", jwk)
	}
	sum := sha256.Sum256([]byte("the-token"))
	want := map[string]any{"htm": "POST", "htu": "https://mcp.example.com:8443/a/mcp", "iat": float64(now.Unix()),
		"ath": base64.RawURLEncoding.EncodeToString(sum[:]), "nonce": "n-1"}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("claim %s = %v, want %v", k, c[k], v)
		}
	}
	if jti, _ := c["jti"].(string); len(jti) < 16 {
		t.Errorf("jti %q", jti)
	}
	// A token request: no ath, no nonce yet; and a new jti every time.
	p2, _ := d.Proof("POST", u, "", "")
	_, c2 := parseProof(t, p2)
	if _, ok := c2["ath"]; ok {
		t.Error("a token request's proof has an ath")
	}
	if _, ok := c2["nonce"]; ok {
		t.Error("a nonce where none was given")
	}
	if c2["jti"] == c["jti"] {
		t.Error("jti reused")
	}
	// The RFC 7638 thumbprint is of the public key in the header.
	canon := `{"crv":"P-256","kty":"EC","x":"` + jwk["x"].(string) + `","y":"` + jwk["y"].(string) + `"}`
	ts := sha256.Sum256([]byte(canon))
	if d.Thumbprint() != base64.RawURLEncoding.EncodeToString(ts[:]) {
		t.Error("thumbprint")
	}
}

func TestDPoPKeyRoundTrip(t *testing.T) {
	d, _ := NewDPoP(nil)
	k, err := d.encodeKey()
	if err != nil {
		t.Fatal(err)
	}
	back := keylessDPoP(nil)
	if err := back.useRecord(&Record{DPoPKey: k}); err != nil || !back.Active() || back.Thumbprint() != d.Thumbprint() {
		t.Fatalf("stored key does not come back: %v", err)
	}
	if err := back.useRecord(&Record{DPoPKey: "bm90IGEga2V5"}); err == nil || !back.Active() || back.Thumbprint() != d.Thumbprint() {
		t.Fatalf("garbage accepted as a key: %v", err)
	}
	if err := back.useRecord(&Record{}); err != nil || back.Active() {
		t.Fatalf("a login bound to no key still signs: %v", err)
	}
}

// The transport: Bearer becomes DPoP with a bound proof; a nonce demand is
// answered by one retry with a new proof and the body again; a second
// demand comes back as it is; the newest nonce is kept per origin.
func TestDPoPTransportNonce(t *testing.T) {
	var mu sync.Mutex
	var seen []string // "scheme jti nonce body"
	always := false   // demand a nonce even when the right one came
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		_, c := parseProof(t, r.Header.Get("DPoP"))
		scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		nonce, _ := c["nonce"].(string)
		mu.Lock()
		seen = append(seen, scheme+" "+c["jti"].(string)+" "+nonce+" "+string(body))
		demand := always || nonce != "srv-2"
		mu.Unlock()
		w.Header().Set("DPoP-Nonce", "srv-2")
		if demand {
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", error_description="nonce"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	d, _ := NewDPoP(nil)
	d.Activate()
	c := &http.Client{Transport: d.Wrap(nil)}
	do := func() int {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(`{"x":1}`))
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if req.Header.Get("Authorization") != "Bearer tok" || req.Header.Get("DPoP") != "" {
			t.Fatal("the caller's request was changed")
		}
		return resp.StatusCode
	}
	if got := do(); got != 200 {
		t.Fatalf("status %d after the nonce retry", got)
	}
	if len(seen) != 2 || !strings.HasPrefix(seen[0], "DPoP ") || !strings.HasSuffix(seen[0], `  {"x":1}`) ||
		!strings.HasSuffix(seen[1], ` srv-2 {"x":1}`) || strings.Fields(seen[0])[1] == strings.Fields(seen[1])[1] {
		t.Fatalf("exchanges %q", seen)
	}
	// The kept nonce goes with the next request at once.
	seen = nil
	if got := do(); got != 200 || len(seen) != 1 {
		t.Fatalf("status %d, exchanges %q", got, seen)
	}
	// A server that demands again: exactly one retry, then its answer.
	seen, always = nil, true
	if got := do(); got != 401 || len(seen) != 2 {
		t.Fatalf("status %d, exchanges %q", got, seen)
	}
}

// A token request (form POST) gets a proof without ath; a 400
// use_dpop_nonce is retried once; other requests pass untouched, and so
// does everything while the key is inactive.
func TestDPoPTransportTokenRequest(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.Header.Get("DPoP")
		if p == "" {
			got = append(got, "none")
			return
		}
		_, c := parseProof(t, p)
		if _, ok := c["ath"]; ok {
			t.Error("ath in a token request's proof")
		}
		r.ParseForm()
		nonce, _ := c["nonce"].(string)
		got = append(got, "proof "+nonce+" "+r.PostForm.Get("grant_type"))
		if nonce != "as-1" {
			w.Header().Set("DPoP-Nonce", "as-1")
			writeJSONForTest(w, 400, `{"error":"use_dpop_nonce"}`)
			return
		}
		writeJSONForTest(w, 200, `{"access_token":"a","token_type":"DPoP"}`)
	}))
	defer srv.Close()
	d, _ := NewDPoP(nil)
	c := &http.Client{Transport: d.Wrap(nil)}
	post := func(ct string) int {
		req, _ := http.NewRequest("POST", srv.URL+"/token", strings.NewReader("grant_type=refresh_token"))
		req.Header.Set("Content-Type", ct)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	post("application/x-www-form-urlencoded")
	d.Activate()
	post("application/json")
	if s := post("application/x-www-form-urlencoded"); s != 200 {
		t.Fatalf("status %d", s)
	}
	want := []string{"none", "none", "proof  refresh_token", "proof as-1 refresh_token"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func writeJSONForTest(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}
