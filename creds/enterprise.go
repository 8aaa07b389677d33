package creds

import (
	"context"
	"net/http"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// The RFC 8693 token exchange that turns an ID token into an ID-JAG.
const (
	tokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	idJAGType     = "urn:ietf:params:oauth:token-type:id-jag"
	idTokenType   = "urn:ietf:params:oauth:token-type:id_token"
)

// EnterpriseOptions configure enterprise-managed authorization (SEP-990,
// the MCP extension io.modelcontextprotocol/enterprise-managed-authorization):
// the user's ID token from the enterprise identity provider is exchanged
// there for an identity assertion grant (ID-JAG), and that at the MCP
// authorization server for an access token. No consent screen, no browser.
type EnterpriseOptions struct {
	Server   string // the server's name, for messages
	Resource string // the MCP endpoint, sent as the RFC 8707 resource
	// Issuer is the MCP authorization server's exact issuer identifier.
	Issuer   string
	ClientID string
	Scopes   []string
	// The MCP client's own authentication, as for client credentials:
	// Secret, or KeyFile + Alg.
	Secret  string
	KeyFile string
	Alg     string

	IdPIssuer        string
	IdPClientID      string
	IdPSecret        string // optional
	IdPTokenEndpoint string // "": from the identity provider's metadata

	// Where the ID token comes from: a variable or a file (resolved
	// against the config file).
	IDTokenEnv  string
	IDTokenFile string

	Getenv     func(string) string
	HTTPClient *http.Client // nil: a client that follows no redirects
	Now        func() time.Time
}

// Enterprise is the auth.OAuthHandler of enterprise-managed authorization:
// two token requests at connect time, the ID-JAG and the access token in
// memory only.
type Enterprise struct {
	inMemory
	o       EnterpriseOptions
	ctx     context.Context
	auth    *clientAuth
	idToken string
	meta    *asMetadata
	idpURL  string // the identity provider's token endpoint
}

// NewEnterprise reads the ID token and the client's key, or says what is
// missing, before anything is contacted.
func NewEnterprise(ctx context.Context, o EnterpriseOptions) (*Enterprise, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.HTTPClient == nil {
		o.HTTPClient = noRedirectClient()
	}
	if o.IDTokenEnv == "" && o.IDTokenFile == "" {
		return nil, fail.New(fail.AuthRequired, `set "idTokenEnv" or "idTokenFile" in the server's "auth" block to an ID token your identity provider issued for "idp.clientId"`,
			"%s needs an ID token from the identity provider %s", o.Server, o.IdPIssuer)
	}
	idToken, err := readToken(o.Getenv, o.Server, "ID token", o.IDTokenEnv, o.IDTokenFile,
		"export "+o.IDTokenEnv+" with an ID token your identity provider issued for \"idp.clientId\"",
		`write an ID token from your identity provider there or correct "idTokenFile"`)
	if err != nil {
		return nil, err
	}
	ca, err := newClientAuth(o.Server, o.ClientID, o.Secret, o.KeyFile, o.Alg)
	if err != nil {
		return nil, err
	}
	e := &Enterprise{o: o, ctx: ctx, auth: ca, idToken: idToken}
	e.inMemory = inMemory{server: o.Server, kind: "enterprise", asked: "the enterprise grant", now: o.Now, fetch: e.fetch,
		rejectHint: "check the audience the MCP server expects and the scopes your identity provider grants"}
	return e, nil
}

// endpoints checks both issuers' metadata before the ID token goes
// anywhere: the MCP authorization server's (its issuer is the ID-JAG's
// audience) and, unless "tokenEndpoint" names it, the identity provider's.
func (e *Enterprise) endpoints() error {
	if e.meta == nil {
		m, err := issuerMetadata(e.ctx, e.o.HTTPClient, e.o.Server, e.o.Issuer, "authorization server", "issuer")
		if err != nil {
			return err
		}
		e.meta = m
	}
	if e.idpURL == "" {
		if u := e.o.IdPTokenEndpoint; u != "" {
			if err := checkEndpoint(u); err != nil {
				return fail.Wrap(fail.Config, err, `"idp.tokenEndpoint" must be an https URL (http only on loopback)`, "%s: invalid identity provider token endpoint", e.o.Server)
			}
			e.idpURL = u
		} else {
			m, err := issuerMetadata(e.ctx, e.o.HTTPClient, e.o.Server, e.o.IdPIssuer, "identity provider", "idp.issuer")
			if err != nil {
				return err
			}
			e.idpURL = m.TokenEndpoint
		}
	}
	return nil
}

func (e *Enterprise) fetch() (*Record, error) {
	if err := e.endpoints(); err != nil {
		return nil, err
	}
	scope := strings.Join(e.o.Scopes, " ")
	now := e.o.Now()
	jag, err := tokenRequest(e.ctx, e.o.HTTPClient, e.idpURL, e.o.IdPClientID, e.o.IdPSecret, oauth2.AuthStyleInHeader, map[string]string{
		"grant_type":           tokenExchange,
		"requested_token_type": idJAGType,
		"subject_token":        e.idToken,
		"subject_token_type":   idTokenType,
		"audience":             e.meta.Issuer,
		"resource":             e.o.Resource,
		"scope":                scope,
	}, now)
	if err != nil {
		return nil, fail.Wrap(fail.AuthFailed, boundedRefusal(err),
			`check the ID token (is it current, and issued for "idp.clientId"?) and that the identity provider lets this client reach the MCP server`,
			"the identity provider refused the token exchange for %s", e.o.Server)
	}
	params := map[string]string{
		"grant_type": jwtBearer,
		"assertion":  jag.AccessToken,
		"resource":   e.o.Resource,
		"scope":      scope,
	}
	secret, style, err := e.auth.apply(e.meta, params, now)
	if err != nil {
		return nil, err
	}
	tok, err := tokenRequest(e.ctx, e.o.HTTPClient, e.meta.TokenEndpoint, e.o.ClientID, secret, style, params, now)
	if err != nil {
		return nil, fail.Wrap(fail.AuthFailed, boundedRefusal(err),
			`check "clientId" and its secret or key, and that the authorization server trusts the identity provider`,
			"the authorization server refused the ID-JAG for %s", e.o.Server)
	}
	return &Record{AccessToken: tok.AccessToken, Expiry: tok.Expiry, Obtained: now}, nil
}
