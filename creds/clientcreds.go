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

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// ClientCredentialsOptions configure the client_credentials grant (the MCP
// extension io.modelcontextprotocol/oauth-client-credentials), what CI uses:
// no browser, no keyring.
type ClientCredentialsOptions struct {
	Server   string // the server's name, for messages
	Resource string // the MCP endpoint, sent as the RFC 8707 resource
	ClientID string
	// Issuer is the authorization server's exact issuer identifier; its
	// metadata must name the same string.
	Issuer string
	Scopes []string
	// Exactly one of Secret (client_secret_basic/post) and KeyFile +
	// Alg (private_key_jwt, RFC 7523).
	Secret  string
	KeyFile string
	Alg     string
	// DPoP: nil signs with a per-invocation key when the authorization
	// server's metadata offers DPoP; true always, false never.
	DPoP *bool

	HTTPClient *http.Client // nil: a client that follows no redirects
	Now        func() time.Time
}

// ClientCredentials is an auth.OAuthHandler that obtains tokens with the
// client_credentials grant at connect time. Tokens live in this process's
// memory only; every invocation gets its own.
type ClientCredentials struct {
	o   ClientCredentialsOptions
	ctx context.Context
	key any // the parsed private key for private_key_jwt
	alg jwt.SigningMethod
	// dpop is this invocation's proof key (in memory only); nil when
	// DPoP is turned off.
	dpop *DPoP

	mu       sync.Mutex
	meta     *asMetadata
	tok      *Record // only the token fields are used
	rejected bool
}

var _ auth.OAuthHandler = (*ClientCredentials)(nil)

// maxKeyFile bounds the client assertion key file: a PEM private key is a
// few KiB, and the file is named by a config file mcpc may not have written.
const maxKeyFile = 1 << 20

// NewClientCredentials checks the settings and reads the key file; nothing
// is sent until the first request needs a token.
func NewClientCredentials(ctx context.Context, o ClientCredentialsOptions) (*ClientCredentials, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.HTTPClient == nil {
		o.HTTPClient = noRedirectClient()
	}
	c := &ClientCredentials{o: o, ctx: ctx}
	if o.DPoP == nil || *o.DPoP {
		d, err := NewDPoP(o.Now)
		if err != nil {
			return nil, fail.Wrap(fail.AuthFailed, err, "", "cannot make a DPoP key for %s", o.Server)
		}
		if o.DPoP != nil {
			d.Activate()
		}
		hc := *o.HTTPClient
		hc.Transport = d.Wrap(hc.Transport)
		c.o.HTTPClient, c.dpop = &hc, d
	}
	if o.KeyFile != "" {
		pem, err := fsx.ReadFile(o.KeyFile, maxKeyFile)
		if err != nil {
			return nil, fail.Wrap(fail.Config, err, `check "clientAssertionKeyFile" of `+o.Server, "cannot read the client assertion key of %s", o.Server)
		}
		if c.alg, c.key, err = parseKey(o.Alg, pem); err != nil {
			return nil, fail.Wrap(fail.Config, err, `use a PEM private key matching "clientAssertionAlg" (ES256, ES384, ES512, RS256, RS384, RS512, PS256, PS384, PS512 or EdDSA)`,
				"cannot use the client assertion key %s of %s", o.KeyFile, o.Server)
		}
	}
	return c, nil
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

// WrapHTTP implements HTTPWrapper: with DPoP, the MCP requests carry
// proofs made with this invocation's key.
func (c *ClientCredentials) WrapHTTP(base http.RoundTripper) http.RoundTripper {
	if c.dpop == nil {
		return base
	}
	return c.dpop.Wrap(base)
}

// TokenSource implements auth.OAuthHandler.
func (c *ClientCredentials) TokenSource(context.Context) (oauth2.TokenSource, error) { return c, nil }

// Token implements oauth2.TokenSource.
func (c *ClientCredentials) Token() (*oauth2.Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok == nil || c.tok.Stale(c.o.Now()) {
		if err := c.fetchLocked(); err != nil {
			return nil, err
		}
	}
	return &oauth2.Token{AccessToken: c.tok.AccessToken, TokenType: "Bearer", Expiry: c.tok.Expiry}, nil
}

// Authorize implements auth.OAuthHandler: one new token after a 401, then
// the refusal is final.
func (c *ClientCredentials) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	if useNonceChallenge(resp) {
		return nonceAgain(c.o.Server)
	}
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	c.mu.Lock()
	defer c.mu.Unlock()
	if resp.StatusCode == http.StatusForbidden {
		if param(challenges, "error") == "insufficient_scope" {
			return fail.New(fail.AuthFailed, `add them to "scopes" in the server's "auth" block`,
				"%s needs scopes the client credentials did not ask for (insufficient_scope: %s)", c.o.Server, param(challenges, "scope"))
		}
		return fail.New(fail.AuthFailed, "check the client's permissions at the authorization server",
			"%s refused the client-credentials token (HTTP 403)", c.o.Server)
	}
	if c.rejected {
		return fail.New(fail.AuthFailed, "check the client's registration and the server's expected audience",
			"%s rejected the client-credentials token (HTTP %d)", c.o.Server, resp.StatusCode)
	}
	c.rejected = true
	return c.fetchLocked()
}

// asMetadata is the part of RFC 8414 metadata the grant needs.
type asMetadata struct {
	Issuer        string   `json:"issuer"`
	TokenEndpoint string   `json:"token_endpoint"`
	AuthMethods   []string `json:"token_endpoint_auth_methods_supported"`
	DPoPAlgs      []string `json:"dpop_signing_alg_values_supported"`
}

// metadata fetches the issuer's metadata (RFC 8414 with path insertion,
// then OpenID Connect discovery) and requires its issuer to be exactly the
// configured one: no normalization, so a look-alike cannot pass.
func (c *ClientCredentials) metadata() (*asMetadata, error) {
	if c.meta != nil {
		return c.meta, nil
	}
	// The metadata names where the secret or assertion goes: fetched
	// over plain HTTP, anyone on the path could name their own endpoint.
	u, err := url.Parse(c.o.Issuer)
	if err != nil || checkEndpoint(c.o.Issuer) != nil {
		return nil, fail.New(fail.Config, `"issuer" must be an https URL (http only on loopback)`, "%s: invalid issuer %q", c.o.Server, c.o.Issuer)
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
		req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, mu, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		resp, err := c.o.HTTPClient.Do(req)
		if err != nil {
			return nil, fail.Wrap(fail.Connection, err, "", "cannot fetch the metadata of the authorization server %s", c.o.Issuer)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			continue
		}
		var m asMetadata
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fail.Wrap(fail.AuthFailed, err, "", "the metadata of the authorization server %s is not valid JSON", c.o.Issuer)
		}
		if m.Issuer != c.o.Issuer {
			return nil, fail.New(fail.AuthFailed, `"issuer" must be exactly the authorization server's issuer identifier`,
				"the authorization server's metadata names the issuer %q, not the configured %q", m.Issuer, c.o.Issuer)
		}
		if m.TokenEndpoint == "" {
			return nil, fail.New(fail.AuthFailed, "", "the authorization server %s names no token_endpoint in its metadata", c.o.Issuer)
		}
		if err := checkEndpoint(m.TokenEndpoint); err != nil {
			return nil, fail.Wrap(fail.AuthFailed, err, "", "the authorization server %s has an unusable token_endpoint", c.o.Issuer)
		}
		if c.dpop != nil && dpopOffered(m.DPoPAlgs) {
			c.dpop.Activate()
		}
		c.meta = &m
		return c.meta, nil
	}
	return nil, fail.New(fail.AuthFailed, `check "issuer" for `+c.o.Server,
		"the authorization server %s publishes no metadata", c.o.Issuer)
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

func (c *ClientCredentials) fetchLocked() error {
	m, err := c.metadata()
	if err != nil {
		return err
	}
	params := map[string]string{
		"grant_type": "client_credentials",
		"scope":      strings.Join(c.o.Scopes, " "),
		"resource":   c.o.Resource,
	}
	secret, style := c.o.Secret, oauth2.AuthStyleInHeader
	if c.key != nil {
		assertion, err := c.assertion(m)
		if err != nil {
			return fail.Wrap(fail.Config, err, "", "cannot sign the client assertion for %s", c.o.Server)
		}
		params["client_assertion_type"] = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
		params["client_assertion"] = assertion
		params["client_id"] = c.o.ClientID
		secret = ""
	} else if len(m.AuthMethods) > 0 && !slices.Contains(m.AuthMethods, "client_secret_basic") && slices.Contains(m.AuthMethods, "client_secret_post") {
		style = oauth2.AuthStyleInParams
	}
	now := c.o.Now()
	tok, err := tokenRequest(c.ctx, c.o.HTTPClient, m.TokenEndpoint, c.o.ClientID, secret, style, params, now)
	var te *tokenError
	if errors.As(err, &te) && te.Code == "use_dpop_nonce" {
		return nonceAgain("the authorization server of " + c.o.Server)
	}
	if err != nil {
		return fail.Wrap(fail.AuthFailed, err, "check the client ID, its secret or key, and \"scopes\"",
			"the authorization server refused the client credentials of %s", c.o.Server)
	}
	if err := c.dpop.checkTokenType(c.o.Server, tok.TokenType); err != nil {
		return err
	}
	c.tok = &Record{AccessToken: tok.AccessToken, Expiry: tok.Expiry, Obtained: now}
	return nil
}

// assertion signs an RFC 7523 client assertion: the client is issuer and
// subject, the authorization server (its issuer identifier) the audience.
func (c *ClientCredentials) assertion(m *asMetadata) (string, error) {
	now := c.o.Now()
	claims := jwt.RegisteredClaims{
		Issuer:    c.o.ClientID,
		Subject:   c.o.ClientID,
		Audience:  jwt.ClaimStrings{m.Issuer},
		ID:        rand.Text(),
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(2 * time.Minute)),
	}
	return jwt.NewWithClaims(c.alg, claims).SignedString(c.key)
}
