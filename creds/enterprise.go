package creds

import (
	"context"
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
	Grant      // of the MCP authorization server
	ClientAuth // the MCP client's own, as for client credentials

	IdPIssuer        string
	IdPClientID      string
	IdPSecret        string // optional
	IdPTokenEndpoint string // "": from the identity provider's metadata

	// Where the ID token comes from: a variable or a file (resolved
	// against the config file); with neither, the keyring record of
	// `mcpc login` (Store, Ref), refreshed under the lock in LockDir.
	IDTokenEnv  string
	IDTokenFile string
	Store       Store
	Ref         Ref
	LockDir     string

	Getenv func(string) string
}

// Enterprise is the auth.OAuthHandler of enterprise-managed authorization:
// two token requests at connect time, the ID-JAG and the access token in
// memory only.
type Enterprise struct {
	inMemory
	o       EnterpriseOptions
	auth    *clientAuth
	idToken string
	idpURL  string // the identity provider's token endpoint
}

// NewEnterprise reads the ID token and the client's key, or says what is
// missing, before anything is contacted, except that an expired ID token
// from `mcpc login` is refreshed at the identity provider first.
func NewEnterprise(ctx context.Context, o EnterpriseOptions) (*Enterprise, error) {
	var idToken string
	var err error
	if o.IDTokenEnv == "" && o.IDTokenFile == "" {
		hc := o.HTTPClient
		if hc == nil {
			hc = noRedirectClient()
		}
		now := o.Now
		if now == nil {
			now = time.Now
		}
		idToken, err = storedIDToken(ctx, idTokenOptions{Store: o.Store, Ref: o.Ref, LockDir: o.LockDir, ClientSecret: o.IdPSecret, HTTPClient: hc, Now: now})
	} else {
		idToken, err = readToken(o.Getenv, o.Server, "ID token", o.IDTokenEnv, o.IDTokenFile,
			"export "+o.IDTokenEnv+" with an ID token your identity provider issued for \"idp.clientId\"",
			`write an ID token from your identity provider there or correct "idTokenFile"`)
	}
	if err != nil {
		return nil, err
	}
	ca, err := newClientAuth(o.Server, o.ClientID, o.ClientAuth)
	if err != nil {
		return nil, err
	}
	e := &Enterprise{o: o, auth: ca, idToken: idToken}
	if err := e.init(ctx, o.Grant, "enterprise", "the enterprise grant", "check the audience the MCP server expects and the scopes your identity provider grants", e.fetch); err != nil {
		return nil, err
	}
	return e, nil
}

// endpoints checks both issuers' metadata before the ID token goes
// anywhere: the MCP authorization server's (its issuer is the ID-JAG's
// audience) and, unless "tokenEndpoint" names it, the identity provider's.
func (e *Enterprise) endpoints() (*asMetadata, error) {
	m, err := e.metadata()
	if err != nil || e.idpURL != "" {
		return m, err
	}
	if u := e.o.IdPTokenEndpoint; u != "" {
		if err := checkEndpoint(u); err != nil {
			return nil, fail.Wrap(fail.Config, err, `"idp.tokenEndpoint" must be an https URL (http only on loopback)`, "%s: invalid identity provider token endpoint", e.g.Server)
		}
		e.idpURL = u
		return m, nil
	}
	idp, err := issuerMetadata(e.ctx, e.plain, e.g.Server, e.o.IdPIssuer, "identity provider", "idp.issuer")
	if err != nil {
		return nil, err
	}
	e.idpURL = idp.TokenEndpoint
	return m, nil
}

func (e *Enterprise) fetch() (*Record, error) {
	m, err := e.endpoints()
	if err != nil {
		return nil, err
	}
	scope := strings.Join(e.g.Scopes, " ")
	now := e.g.Now()
	jag, err := e.requestElsewhere(e.idpURL, e.o.IdPClientID, e.o.IdPSecret, oauth2.AuthStyleInHeader, map[string]string{
		"grant_type":           tokenExchange,
		"requested_token_type": idJAGType,
		"subject_token":        e.idToken,
		"subject_token_type":   idTokenType,
		"audience":             m.Issuer,
		"resource":             e.g.Resource,
		"scope":                scope,
	}, "the identity provider refused the token exchange for %s",
		fixedHint(`check the ID token (is it current, and issued for "idp.clientId"?) and that the identity provider lets this client reach the MCP server`))
	if err != nil {
		return nil, err
	}
	params := map[string]string{
		"grant_type": jwtBearer,
		"assertion":  jag.AccessToken,
		"resource":   e.g.Resource,
		"scope":      scope,
	}
	secret, style, err := e.auth.apply(m, params, now)
	if err != nil {
		return nil, err
	}
	tok, err := e.request(m.TokenEndpoint, e.g.ClientID, secret, style, params, "the authorization server refused the ID-JAG for %s",
		fixedHint(`check "clientId" and its secret or key, and that the authorization server trusts the identity provider`))
	if err != nil {
		return nil, err
	}
	return e.record(tok, now), nil
}
