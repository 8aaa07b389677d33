package creds

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
)

// What the grants made at connect time (client credentials, workload
// identity, enterprise) share: their settings, the in-memory handler, the
// exact-issuer metadata check and the bounded refusal.

// Grant is what every grant made at connect time (client credentials,
// workload identity, enterprise) names.
type Grant struct {
	Server   string // the server's name, for messages
	Resource string // the MCP endpoint, sent as the RFC 8707 resource
	// Issuer is the MCP authorization server's exact issuer identifier;
	// its metadata must name the same string.
	Issuer   string
	ClientID string
	Scopes   []string
	// DPoP: nil binds the token to a per-invocation key (in memory only)
	// when the authorization server's metadata offers DPoP; true always,
	// false never.
	DPoP *bool

	// HTTPClient makes every request to the authorization servers; nil: a
	// client that follows no redirects. With DPoP it is wrapped to sign.
	HTTPClient *http.Client
	Now        func() time.Time
}

// ClientAuth is how a confidential client proves itself: exactly one of
// Secret (client_secret_basic, or _post where the server takes only that)
// and KeyFile + Alg (private_key_jwt, RFC 7523).
type ClientAuth struct {
	Secret  string
	KeyFile string
	Alg     string
}

// inMemory is the auth.OAuthHandler of the grants made at connect time
// (client credentials, workload identity, enterprise): fetch obtains a
// token, which lives in this process's memory only. A 401 is answered with
// a new token; a 401 to that one before the server has accepted it is
// final.
type inMemory struct {
	g          Grant
	ctx        context.Context
	kind       string // "client-credentials": the token's kind, in messages
	asked      string // "the client credentials": who asked for the scopes
	rejectHint string
	fetch      func() (*Record, error)
	meta       *asMetadata  // the issuer's, fetched once
	dpop       *DPoP        // this invocation's proof key; nil: DPoP is off
	plain      *http.Client // g.HTTPClient before DPoP wrapped it: for other parties (the IdP)

	mu  sync.Mutex
	tok *Record // only the token fields are used

	answered answered // the token a 401 was answered with, until it works
}

func (h *inMemory) init(ctx context.Context, g Grant, kind, asked, rejectHint string, fetch func() (*Record, error)) error {
	flowDefaults(&g.Now, &g.HTTPClient)
	h.plain = g.HTTPClient
	if g.DPoP == nil || *g.DPoP {
		d, err := NewDPoP(g.Now)
		if err != nil {
			return fail.Wrap(fail.AuthFailed, err, "", "cannot make a DPoP key for %s", g.Server)
		}
		if g.DPoP != nil {
			d.Activate()
		}
		hc := *g.HTTPClient
		hc.Transport = d.Wrap(hc.Transport)
		g.HTTPClient, h.dpop = &hc, d
	}
	h.g, h.ctx, h.kind, h.asked, h.rejectHint, h.fetch = g, ctx, kind, asked, rejectHint, fetch
	return nil
}

// WrapHTTP implements HTTPWrapper: with DPoP, the MCP requests carry
// proofs made with this invocation's key; their answers tell whether a
// token obtained after a 401 works (answered).
func (h *inMemory) WrapHTTP(base http.RoundTripper) http.RoundTripper {
	if h.dpop != nil {
		base = h.dpop.Wrap(base)
	}
	return h.answered.wrap(base)
}

// metadata is the configured issuer's, fetched once per invocation.
func (h *inMemory) metadata() (*asMetadata, error) {
	if h.meta == nil {
		m, err := issuerMetadata(h.ctx, h.g.HTTPClient, h.g.Server, h.g.Issuer, "authorization server", "issuer")
		if err != nil {
			return nil, err
		}
		if h.dpop != nil && dpopOffered(m.DPoPAlgs) {
			h.dpop.Activate()
		}
		h.meta = m
	}
	return h.meta, nil
}

// request posts one grant to the authorization server's token endpoint
// (with a DPoP proof when DPoP is on); a refusal is exit 4 with msg (what
// was refused, "%s" the server), the server's error and its bounded
// description, and the hint for that error.
func (h *inMemory) request(tokenURL, clientID, secret string, style oauth2.AuthStyle, params map[string]string, msg string, hint func(error) string) (*tokenResponse, error) {
	return h.post(h.g.HTTPClient, h.dpop, tokenURL, clientID, secret, style, params, msg, hint)
}

// requestElsewhere is request to another party's token endpoint (the
// identity provider's): no DPoP proof, and its token is not the one bound.
func (h *inMemory) requestElsewhere(tokenURL, clientID, secret string, style oauth2.AuthStyle, params map[string]string, msg string, hint func(error) string) (*tokenResponse, error) {
	return h.post(h.plain, nil, tokenURL, clientID, secret, style, params, msg, hint)
}

func (h *inMemory) post(hc *http.Client, dpop *DPoP, tokenURL, clientID, secret string, style oauth2.AuthStyle, params map[string]string, msg string, hint func(error) string) (*tokenResponse, error) {
	tok, err := tokenRequest(h.ctx, hc, tokenURL, clientID, secret, style, params, h.g.Now())
	var te *tokenError
	if errors.As(err, &te) && te.Code == "use_dpop_nonce" && dpop != nil {
		// The DPoP transport answered one demand already.
		return nil, nonceAgain("the authorization server of " + h.g.Server)
	}
	if err != nil {
		return nil, fail.Wrap(fail.AuthFailed, boundedRefusal(h.ctx, err), hint(err), msg, h.g.Server)
	}
	if err := dpop.checkTokenType(h.g.Server, tok.TokenType); err != nil {
		return nil, err
	}
	return tok, nil
}

// fixedHint is one hint whatever the error.
func fixedHint(s string) func(error) string { return func(error) string { return s } }

// record keeps an access token in memory.
func (h *inMemory) record(tok *tokenResponse, obtained time.Time) *Record {
	return &Record{AccessToken: tok.AccessToken, Expiry: tok.Expiry, Obtained: obtained}
}

// TokenSource implements auth.OAuthHandler.
func (h *inMemory) TokenSource(context.Context) (oauth2.TokenSource, error) { return h, nil }

// Token implements oauth2.TokenSource.
func (h *inMemory) Token() (*oauth2.Token, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tok == nil || h.tok.Stale(h.g.Now()) {
		if err := h.fetchLocked(); err != nil {
			return nil, err
		}
	}
	return &oauth2.Token{AccessToken: h.tok.AccessToken, TokenType: "Bearer", Expiry: h.tok.Expiry}, nil
}

func (h *inMemory) fetchLocked() error {
	tok, err := h.fetch()
	if err != nil {
		return err
	}
	h.tok = tok
	return nil
}

// Authorize implements auth.OAuthHandler: a new token after a 401; a 401
// to that one before the server has accepted it is final.
func (h *inMemory) Authorize(_ context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	if useNonceChallenge(resp) {
		return nonceAgain(h.g.Server)
	}
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	h.mu.Lock()
	defer h.mu.Unlock()
	if resp.StatusCode == http.StatusForbidden {
		if param(challenges, "error") == "insufficient_scope" {
			return fail.New(fail.AuthFailed, `add them to "scopes" in the server's "auth" block`,
				"%s needs scopes %s did not ask for (insufficient_scope: %s)", h.g.Server, h.asked, param(challenges, "scope"))
		}
		return fail.New(fail.AuthFailed, "check the client's permissions at the authorization server",
			"%s refused the %s token (HTTP 403)", h.g.Server, h.kind)
	}
	sent := bearer(req)
	if h.answered.final(sent) {
		return fail.New(fail.AuthFailed, h.rejectHint, "%s rejected the %s token (HTTP %d)", h.g.Server, h.kind, resp.StatusCode)
	}
	if h.tok != nil && sent != "" && sent != h.tok.AccessToken {
		// A request in flight with an older token: the one it needs
		// was already fetched.
		return nil
	}
	if err := h.fetchLocked(); err != nil {
		return err
	}
	h.answered.set(h.tok.AccessToken)
	return nil
}

// asMetadata is the part of RFC 8414 metadata the grant needs.
type asMetadata struct {
	Issuer        string `json:"issuer"`
	TokenEndpoint string `json:"token_endpoint"`
	// An identity provider's, for `mcpc login` of an enterprise server.
	AuthorizationEndpoint string   `json:"authorization_endpoint"`
	AuthMethods           []string `json:"token_endpoint_auth_methods_supported"`
	DPoPAlgs              []string `json:"dpop_signing_alg_values_supported"`
}

// issuerMetadata fetches the metadata of the authorization server (or
// identity provider: role names which, key its config key) at issuer (RFC
// 8414 with path insertion, then OpenID Connect discovery) and requires
// its issuer to be exactly the configured one: no normalization, so a
// look-alike cannot pass.
func issuerMetadata(ctx context.Context, hc *http.Client, server, issuer, role, key string) (*asMetadata, error) {
	// The metadata names where the secret or assertion goes: fetched
	// over plain HTTP, anyone on the path could name their own endpoint.
	u, err := url.Parse(issuer)
	if err != nil || checkEndpoint(issuer) != nil {
		return nil, fail.New(fail.Config, fmt.Sprintf(`%q must be an https URL (http only on loopback)`, key), "%s: invalid %s %q", server, key, issuer)
	}
	path := strings.TrimRight(u.Path, "/")
	var candidates []string
	for _, wk := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		v := *u
		v.Path, v.RawQuery, v.Fragment = wk+path, "", ""
		candidates = append(candidates, v.String())
	}
	if path != "" {
		v := *u
		v.Path = path + "/.well-known/openid-configuration"
		candidates = append(candidates, v.String())
	}
	for _, mu := range candidates {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, mu, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return nil, fail.Wrap(fail.Connection, err, "", "cannot fetch the metadata of the %s %s", role, issuer)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			continue
		}
		var m asMetadata
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fail.Wrap(fail.AuthFailed, err, "", "the metadata of the %s %s is not valid JSON", role, issuer)
		}
		if m.Issuer != issuer {
			return nil, fail.New(fail.AuthFailed, fmt.Sprintf(`%q must be exactly the %s's issuer identifier`, key, role),
				"the %s's metadata names the issuer %q, not the configured %q", role, m.Issuer, issuer)
		}
		if m.TokenEndpoint == "" {
			return nil, fail.New(fail.AuthFailed, "", "the %s %s names no token_endpoint in its metadata", role, issuer)
		}
		if err := checkEndpoint(m.TokenEndpoint); err != nil {
			return nil, fail.Wrap(fail.AuthFailed, err, "", "the %s %s has an unusable token_endpoint", role, issuer)
		}
		return &m, nil
	}
	return nil, fail.New(fail.AuthFailed, fmt.Sprintf(`check %q for %s`, key, server),
		"the %s %s publishes no metadata", role, issuer)
}

// checkEndpoint allows https, and http only on loopback.
func checkEndpoint(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a URL", s)
	}
	h := u.Hostname()
	if u.Scheme == "https" || u.Scheme == "http" && (h == "127.0.0.1" || h == "::1" || h == "localhost") {
		return nil
	}
	return fmt.Errorf("%q is neither https nor http on loopback", s)
}

// maxDescription bounds a token endpoint's error_description in messages:
// the server chose it, and it ends up on a terminal.
const maxDescription = 300

// boundedRefusal cuts a token error's description to maxDescription bytes (at a
// rune boundary); the output stage strips its control characters. The
// secrets sent are redacted first: the description may quote the request,
// and a secret cut in two would no longer be recognized at stderr.
func boundedRefusal(ctx context.Context, err error) error {
	var te *tokenError
	if !errors.As(err, &te) {
		return err
	}
	c := *te
	c.Description = redact.FromContext(ctx).String(c.Description)
	if len(c.Description) <= maxDescription {
		return &c
	}
	cut := maxDescription
	for cut > 0 && !utf8.RuneStart(c.Description[cut]) {
		cut--
	}
	c.Description = c.Description[:cut] + "…"
	return &c
}
