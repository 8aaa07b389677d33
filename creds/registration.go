package creds

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpc-dev/mcpc/internal/httpx"
	"github.com/mcpc-dev/mcpc/internal/redact"
)

// Registration is a client registered with an authorization server by
// Dynamic Client Registration (RFC 7591). It is kept in the keyring per
// issuer, so later logins to any server of that authorization server reuse
// it instead of registering again.
type Registration struct {
	Version      int    `json:"version"`
	Issuer       string `json:"issuer"`
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// SecretExpires is client_secret_expires_at; zero: never.
	SecretExpires time.Time `json:"secretExpires,omitzero"`
	AuthMethod    string    `json:"tokenEndpointAuthMethod,omitempty"`
	RedirectURIs  []string  `json:"redirectUris"`
	Registered    time.Time `json:"registered"`
}

// registrationVersion also changes when the metadata mcpc registers with
// changes: an old registration then no longer matches and a new one is made.
const registrationVersion = 1

// registrationKey is where the registration at issuer is kept.
func registrationKey(issuer string) string {
	h := sha256.Sum256([]byte("mcpc-registration-v1\x00" + strings.TrimSuffix(issuer, "/")))
	return "registration-" + hex.EncodeToString(h[:])[:32]
}

// LoadRegistration reads the registration kept for issuer; ErrNotFound when
// there is none (or it is unreadable, or from an older mcpc).
func LoadRegistration(ctx context.Context, st Store, issuer string) (*Registration, error) {
	b, err := st.Get(ctx, registrationKey(issuer))
	if err != nil && !errors.Is(err, errUnreadable) {
		return nil, err
	}
	var r Registration
	if err != nil || json.Unmarshal(b, &r) != nil || r.Version != registrationVersion || r.ClientID == "" {
		return nil, ErrNotFound
	}
	// The client's secret is sent from now on (decoded in a Basic
	// credential too), and a token endpoint may quote it back.
	redact.Add(ctx, r.ClientSecret)
	return &r, nil
}

func saveRegistration(ctx context.Context, st Store, r *Registration) error {
	r.Version = registrationVersion
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	attrs := map[string]string{"issuer": r.Issuer, "kind": "registration"}
	return st.Put(ctx, registrationKey(r.Issuer), "mcpc: client registration at "+r.Issuer, attrs, b)
}

// ForgetRegistration deletes the registration kept for issuer when it is
// the one for clientID ("" for any); it reports whether one was deleted.
func ForgetRegistration(ctx context.Context, st Store, issuer, clientID string) (bool, error) {
	if issuer == "" {
		return false, nil
	}
	r, err := LoadRegistration(ctx, st, issuer)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if clientID != "" && r.ClientID != clientID {
		return false, nil
	}
	if err := st.Delete(ctx, registrationKey(issuer)); err != nil && !errors.Is(err, ErrNotFound) {
		return false, err
	}
	return true, nil
}

// usable says whether the registration can serve a login that redirects to
// redirectURIs at now: its secret (if any) has not expired, and each
// redirect URI was registered. A loopback redirect URI matches whatever its
// port: RFC 8252 section 7.3 has the authorization server accept any port
// on a loopback redirect, since a native client listens on whichever port
// is free.
func (r *Registration) usable(redirectURIs []string, now time.Time) bool {
	if !r.SecretExpires.IsZero() && !now.Add(time.Minute).Before(r.SecretExpires) {
		return false
	}
	for _, want := range redirectURIs {
		ok := false
		for _, have := range r.RedirectURIs {
			if sameRedirect(want, have) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func sameRedirect(a, b string) bool {
	if a == b {
		return true
	}
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil || ua.Scheme != "http" || ub.Scheme != "http" {
		return false
	}
	ip := net.ParseIP(ua.Hostname())
	return ip != nil && ip.IsLoopback() && ua.Hostname() == ub.Hostname() &&
		ua.Path == ub.Path && ua.RawQuery == ub.RawQuery
}

// loopbackPort is the port of a loopback redirect URI; 0 when it is not one.
func loopbackPort(redirect string) int {
	u, err := url.Parse(redirect)
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" {
		return 0
	}
	p, _ := strconv.Atoi(u.Port())
	return p
}

// loginTransport carries the login's requests. It watches the authorization
// server metadata the SDK fetches (to learn the issuer and its registration
// endpoint) and answers the SDK's registration request from the keyring when
// a usable registration at that issuer is kept; a registration that does
// reach the server is kept for the next login.
type loginTransport struct {
	base http.RoundTripper
	l    *Login
}

func (t *loginTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	if req.Method == http.MethodPost && t.l.isRegistrationEndpoint(req.URL.String()) {
		return t.register(req, base)
	}
	registerForm(req)
	resp, err := base.RoundTrip(req)
	p := req.URL.Path
	if err != nil || resp.StatusCode != http.StatusOK ||
		!strings.Contains(p, "/.well-known/oauth-authorization-server") && !strings.Contains(p, "/.well-known/openid-configuration") {
		return resp, err
	}
	body, err := peekBody(resp)
	if err != nil {
		return nil, err
	}
	var meta struct {
		Issuer               string   `json:"issuer"`
		RegistrationEndpoint string   `json:"registration_endpoint"`
		DPoPAlgs             []string `json:"dpop_signing_alg_values_supported"`
	}
	if json.Unmarshal(body, &meta) == nil && meta.Issuer != "" {
		t.l.sawMetadata(meta.Issuer, meta.RegistrationEndpoint, meta.DPoPAlgs)
	}
	return resp, nil
}

// register answers a Dynamic Client Registration request: from the kept
// registration when one is usable, else by the server (and then kept).
func (t *loginTransport) register(req *http.Request, base http.RoundTripper) (*http.Response, error) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	var md oauthex.ClientRegistrationMetadata
	if err := json.Unmarshal(body, &md); err != nil {
		return nil, fmt.Errorf("cannot read the registration request: %w", err)
	}
	issuer := t.l.registrationIssuer()
	ctx := req.Context()
	if r, err := LoadRegistration(ctx, t.l.o.Store, issuer); err == nil && r.usable(md.RedirectURIs, t.l.o.Now()) {
		t.l.reuse(r)
		resp := oauthex.ClientRegistrationResponse{ClientRegistrationMetadata: md, ClientID: r.ClientID, ClientSecret: r.ClientSecret, ClientSecretExpiresAt: r.SecretExpires}
		resp.TokenEndpointAuthMethod = r.AuthMethod
		b, err := json.Marshal(&resp)
		if err != nil {
			return nil, err
		}
		return httpx.Response(req, http.StatusCreated, "application/json", b), nil
	}
	out := req.Clone(ctx)
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	resp, err := base.RoundTrip(out)
	if err != nil || resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return resp, err
	}
	rb, err := peekBody(resp)
	if err != nil {
		return nil, err
	}
	var got oauthex.ClientRegistrationResponse
	if err := json.Unmarshal(rb, &got); err != nil {
		// The SDK quotes an undecodable registration response whole in
		// its error, and this one may hold our client secret: refuse it
		// here with the decoder's reason only.
		resp.Body.Close()
		return nil, fmt.Errorf("the authorization server's registration response is not a registration (%v); its body is not shown, since it may hold a client secret", err)
	}
	// The secret the server just issued is the invocation's from here:
	// a token endpoint refusing the code exchange may quote it back.
	redact.Add(ctx, got.ClientSecret)
	if got.ClientID != "" {
		r := &Registration{
			Issuer: issuer, ClientID: got.ClientID, ClientSecret: got.ClientSecret, SecretExpires: got.ClientSecretExpiresAt,
			AuthMethod: got.TokenEndpointAuthMethod, RedirectURIs: got.RedirectURIs, Registered: t.l.o.Now().UTC(),
		}
		if len(r.RedirectURIs) == 0 {
			r.RedirectURIs = md.RedirectURIs
		}
		if r.AuthMethod == "" {
			r.AuthMethod = md.TokenEndpointAuthMethod
		}
		// Kept at once, not when the login completes: the server has
		// the client now, and a login abandoned halfway should not
		// leave it a fresh one on every try. A keyring that fails here
		// fails the login when the tokens are stored.
		_ = saveRegistration(ctx, t.l.o.Store, r)
	}
	return resp, nil
}

// peekBody reads a response's body (up to 1 MiB) and puts it back for
// whoever reads the response next.
func peekBody(resp *http.Response) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return b, nil
}

// registerForm registers, for redaction, the secrets of a token request
// the SDK makes in a login (the code, the PKCE verifier, the client's
// secret in the form or in Basic authentication): the token endpoint may
// quote them back in an error.
func registerForm(req *http.Request) {
	ctx := req.Context()
	if cred, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Basic "); ok {
		redact.Add(ctx, cred)
	}
	if req.Method != http.MethodPost || req.GetBody == nil || req.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		return
	}
	body, err := req.GetBody()
	if err != nil {
		return
	}
	defer body.Close()
	b, _ := io.ReadAll(io.LimitReader(body, 1<<20))
	form, _ := url.ParseQuery(string(b))
	params := map[string]string{}
	for _, k := range secretParams {
		params[k] = form.Get(k)
	}
	registerSent(ctx, "", params)
}
