package creds

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
)

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

	// HTTPClient makes every request to the authorization servers (a DPoP
	// round tripper goes in here); nil: a client that follows no redirects.
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

// ClientCredentialsOptions configure the client_credentials grant (the MCP
// extension io.modelcontextprotocol/oauth-client-credentials), what CI uses:
// no browser, no keyring.
type ClientCredentialsOptions struct {
	Grant
	ClientAuth
}

// ClientCredentials is an auth.OAuthHandler that obtains tokens with the
// client_credentials grant at connect time. Tokens live in this process's
// memory only; every invocation gets its own.
type ClientCredentials struct {
	inMemory
	auth *clientAuth
}

var _ auth.OAuthHandler = (*ClientCredentials)(nil)

// maxKeyFile bounds the client assertion key file: a PEM private key is a
// few KiB, and the file is named by a config file mcpc may not have written.
const maxKeyFile = 1 << 20

// NewClientCredentials checks the settings and reads the key file; nothing
// is sent until the first request needs a token.
func NewClientCredentials(ctx context.Context, o ClientCredentialsOptions) (*ClientCredentials, error) {
	ca, err := newClientAuth(o.Server, o.ClientID, o.ClientAuth)
	if err != nil {
		return nil, err
	}
	c := &ClientCredentials{auth: ca}
	c.init(ctx, o.Grant, "client-credentials", "the client credentials", "check the client's registration and the server's expected audience", c.fetch)
	return c, nil
}

// clientAuth is a ClientAuth with its key read and parsed.
type clientAuth struct {
	server   string
	clientID string
	secret   string
	key      any // the parsed private key for private_key_jwt
	alg      jwt.SigningMethod
}

// newClientAuth reads and parses the key file, if one is named.
func newClientAuth(server, clientID string, a ClientAuth) (*clientAuth, error) {
	c := &clientAuth{server: server, clientID: clientID, secret: a.Secret}
	if a.KeyFile == "" {
		return c, nil
	}
	pem, err := fsx.ReadFile(a.KeyFile, maxKeyFile)
	if err != nil {
		return nil, fail.Wrap(fail.Config, err, `check "clientAssertionKeyFile" of `+server, "cannot read the client assertion key of %s", server)
	}
	if c.alg, c.key, err = parseKey(a.Alg, pem); err != nil {
		return nil, fail.Wrap(fail.Config, err, `use a PEM private key matching "clientAssertionAlg" (ES256, ES384, ES512, RS256, RS384, RS512, PS256, PS384, PS512 or EdDSA)`,
			"cannot use the client assertion key %s of %s", a.KeyFile, server)
	}
	return c, nil
}

// apply adds the client's authentication for the authorization server m
// to params; the secret and style are tokenRequest's.
func (c *clientAuth) apply(m *asMetadata, params map[string]string, now time.Time) (string, oauth2.AuthStyle, error) {
	if c.key != nil {
		assertion, err := c.assertion(m, now)
		if err != nil {
			return "", 0, fail.Wrap(fail.Config, err, "", "cannot sign the client assertion for %s", c.server)
		}
		params["client_assertion_type"] = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
		params["client_assertion"] = assertion
		return "", oauth2.AuthStyleInParams, nil
	}
	if len(m.AuthMethods) > 0 && !slices.Contains(m.AuthMethods, "client_secret_basic") && slices.Contains(m.AuthMethods, "client_secret_post") {
		return c.secret, oauth2.AuthStyleInParams, nil
	}
	return c.secret, oauth2.AuthStyleInHeader, nil
}

// assertion signs an RFC 7523 client assertion: the client is issuer and
// subject, the authorization server (its issuer identifier) the audience.
func (c *clientAuth) assertion(m *asMetadata, now time.Time) (string, error) {
	claims := jwt.RegisteredClaims{
		Issuer:    c.clientID,
		Subject:   c.clientID,
		Audience:  jwt.ClaimStrings{m.Issuer},
		ID:        rand.Text(),
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(2 * time.Minute)),
	}
	return jwt.NewWithClaims(c.alg, claims).SignedString(c.key)
}

// inMemory is the auth.OAuthHandler of the grants made at connect time
// (client credentials, workload identity, enterprise): fetch obtains a
// token, which lives in this process's memory only. After a 401 it fetches
// once more, then the refusal is final.
type inMemory struct {
	g          Grant
	ctx        context.Context
	kind       string // "client-credentials": the token's kind, in messages
	asked      string // "the client credentials": who asked for the scopes
	rejectHint string
	fetch      func() (*Record, error)
	meta       *asMetadata // the issuer's, fetched once

	mu       sync.Mutex
	tok      *Record // only the token fields are used
	rejected bool
}

func (h *inMemory) init(ctx context.Context, g Grant, kind, asked, rejectHint string, fetch func() (*Record, error)) {
	if g.Now == nil {
		g.Now = time.Now
	}
	if g.HTTPClient == nil {
		g.HTTPClient = noRedirectClient()
	}
	h.g, h.ctx, h.kind, h.asked, h.rejectHint, h.fetch = g, ctx, kind, asked, rejectHint, fetch
}

// metadata is the configured issuer's, fetched once per invocation.
func (h *inMemory) metadata() (*asMetadata, error) {
	if h.meta == nil {
		m, err := issuerMetadata(h.ctx, h.g.HTTPClient, h.g.Server, h.g.Issuer, "authorization server", "issuer")
		if err != nil {
			return nil, err
		}
		h.meta = m
	}
	return h.meta, nil
}

// request posts one grant to a token endpoint; a refusal is exit 4 with
// msg (what was refused, "%s" the server), the server's error and its
// bounded description, and the hint for that error.
func (h *inMemory) request(tokenURL, clientID, secret string, style oauth2.AuthStyle, params map[string]string, msg string, hint func(error) string) (*tokenResponse, error) {
	tok, err := tokenRequest(h.ctx, h.g.HTTPClient, tokenURL, clientID, secret, style, params, h.g.Now())
	if err != nil {
		return nil, fail.Wrap(fail.AuthFailed, boundedRefusal(err), hint(err), msg, h.g.Server)
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

// Authorize implements auth.OAuthHandler: one new token after a 401, then
// the refusal is final.
func (h *inMemory) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
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
	if h.rejected {
		return fail.New(fail.AuthFailed, h.rejectHint, "%s rejected the %s token (HTTP %d)", h.g.Server, h.kind, resp.StatusCode)
	}
	h.rejected = true
	return h.fetchLocked()
}

func parseKey(alg string, pem []byte) (jwt.SigningMethod, any, error) {
	m := jwt.GetSigningMethod(alg)
	var key any
	var err error
	switch m.(type) {
	case *jwt.SigningMethodECDSA:
		key, err = jwt.ParseECPrivateKeyFromPEM(pem)
	case *jwt.SigningMethodRSA, *jwt.SigningMethodRSAPSS:
		key, err = jwt.ParseRSAPrivateKeyFromPEM(pem)
	case *jwt.SigningMethodEd25519:
		key, err = jwt.ParseEdPrivateKeyFromPEM(pem)
	default:
		return nil, nil, fmt.Errorf("unsupported clientAssertionAlg %q", alg)
	}
	return m, key, err
}

// asMetadata is the part of RFC 8414 metadata the grant needs.
type asMetadata struct {
	Issuer        string   `json:"issuer"`
	TokenEndpoint string   `json:"token_endpoint"`
	AuthMethods   []string `json:"token_endpoint_auth_methods_supported"`
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

func (c *ClientCredentials) fetch() (*Record, error) {
	m, err := c.metadata()
	if err != nil {
		return nil, err
	}
	params := map[string]string{
		"grant_type": "client_credentials",
		"scope":      strings.Join(c.g.Scopes, " "),
		"resource":   c.g.Resource,
	}
	now := c.g.Now()
	secret, style, err := c.auth.apply(m, params, now)
	if err != nil {
		return nil, err
	}
	tok, err := c.request(m.TokenEndpoint, c.g.ClientID, secret, style, params,
		"the authorization server refused the client credentials of %s", fixedHint(`check the client ID, its secret or key, and "scopes"`))
	if err != nil {
		return nil, err
	}
	return c.record(tok, now), nil
}

// maxDescription bounds a token endpoint's error_description in messages:
// the server chose it, and it ends up on a terminal.
const maxDescription = 300

// boundedRefusal cuts a token error's description to maxDescription bytes (at a
// rune boundary); the output stage strips its control characters.
func boundedRefusal(err error) error {
	var te *tokenError
	if !errors.As(err, &te) || len(te.Description) <= maxDescription {
		return err
	}
	c := *te
	cut := maxDescription
	for cut > 0 && !utf8.RuneStart(c.Description[cut]) {
		cut--
	}
	c.Description = c.Description[:cut] + "…"
	return &c
}
