package creds

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// The OpenID Connect login of an enterprise server (`mcpc login` of an
// "auth": {"type": "enterprise"} entry without "idTokenEnv" or
// "idTokenFile"): the authorization-code flow at the identity provider,
// whose ID token (and refresh token) the keyring keeps for each
// invocation's token exchange.

// IdPLoginOptions configure the OpenID Connect login at an identity
// provider.
type IdPLoginOptions struct {
	Store   Store
	Ref     Ref
	LockDir string // where the record's lock is: the login is stored holding it

	Issuer        string // "idp.issuer": the ID token's iss, exactly
	ClientID      string // "idp.clientId": in the ID token's aud
	ClientSecret  string // optional
	TokenEndpoint string // "": from the discovery
	Scopes        []string

	ShowLink func(link string)
	Paste    io.Reader
	Note     func(msg string)

	HTTPClient *http.Client // nil: a client that follows no redirects
	Now        func() time.Time
}

// IdPLogin runs the flow (discovery, PKCE S256, state, nonce, the printed
// link, the loopback receiver or a pasted redirect URL, the code
// exchange), checks the ID token and stores it with the refresh token.
// Nothing is stored when any check fails.
func IdPLogin(ctx context.Context, o IdPLoginOptions) (*Record, error) {
	if err := interactiveFlow(ctx, &o.Now, &o.HTTPClient, o.Store); err != nil {
		return nil, err
	}
	authURL, tokenURL, err := idpEndpoints(ctx, o)
	if err != nil {
		return nil, err
	}
	recv, err := listenReceiver(0)
	if err != nil {
		return nil, fail.Wrap(fail.AuthFailed, err, "", "cannot listen for the login callback")
	}
	defer recv.close()
	state, nonce, verifier := rand.Text(), rand.Text(), oauth2.GenerateVerifier()
	scopes := []string{"openid"}
	for _, s := range o.Scopes {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	link, err := idpLink(authURL, o, map[string]string{
		"response_type":         "code",
		"client_id":             o.ClientID,
		"redirect_uri":          recv.redirectURL(),
		"scope":                 strings.Join(scopes, " "),
		"state":                 state,
		"nonce":                 nonce,
		"code_challenge":        oauth2.S256ChallengeFromVerifier(verifier),
		"code_challenge_method": "S256",
	})
	if err != nil {
		return nil, err
	}
	recv.expect(state)
	o.ShowLink(link)
	code, err := idpCode(ctx, o, recv, state)
	if err != nil {
		return nil, err
	}
	now := o.Now()
	tok, err := tokenRequest(ctx, o.HTTPClient, tokenURL, o.ClientID, o.ClientSecret, oauth2.AuthStyleInHeader, map[string]string{
		"grant_type":    "authorization_code",
		"code":          code,
		"redirect_uri":  recv.redirectURL(),
		"code_verifier": verifier,
	}, now)
	if err != nil {
		return nil, fail.Wrap(fail.AuthFailed, boundedRefusal(ctx, err), `check "idp.clientId" and its secret`, "the identity provider refused the login code for %s", o.Ref.Server)
	}
	exp, err := checkIDToken(tok.IDToken, o.Issuer, o.ClientID, nonce, now)
	if err != nil {
		return nil, fail.Wrap(fail.AuthFailed, err, `check "idp.issuer" and "idp.clientId"; nothing was stored`, "the identity provider's ID token for %s is refused", o.Ref.Server)
	}
	rec := &Record{
		Issuer:       o.Issuer,
		TokenURL:     tokenURL,
		ClientID:     o.ClientID,
		Scopes:       scopes,
		IDToken:      tok.IDToken,
		RefreshToken: tok.RefreshToken,
		Expiry:       exp,
		Obtained:     now,
	}
	if err := saveLocked(ctx, o.Store, o.LockDir, o.Ref, rec, o.Now); err != nil {
		return nil, err
	}
	return rec, nil
}

// idpEndpoints are the identity provider's authorization endpoint, from
// its metadata, and its token endpoint: the configured one, else the
// metadata's.
func idpEndpoints(ctx context.Context, o IdPLoginOptions) (authURL, tokenURL string, err error) {
	m, err := issuerMetadata(ctx, o.HTTPClient, o.Ref.Server, o.Issuer, "identity provider", "idp.issuer")
	if err != nil {
		return "", "", err
	}
	if err := checkEndpoint(m.AuthorizationEndpoint); err != nil {
		return "", "", fail.New(fail.AuthFailed, "the identity provider must support the OpenID Connect authorization-code flow; or give the ID token with \"idTokenEnv\" or \"idTokenFile\"",
			"the identity provider %s names no usable authorization_endpoint in its metadata", o.Issuer)
	}
	if o.TokenEndpoint == "" {
		return m.AuthorizationEndpoint, m.TokenEndpoint, nil
	}
	if err := checkEndpoint(o.TokenEndpoint); err != nil {
		return "", "", fail.Wrap(fail.Config, err, `"idp.tokenEndpoint" must be an https URL (http only on loopback)`, "%s: invalid identity provider token endpoint", o.Ref.Server)
	}
	return m.AuthorizationEndpoint, o.TokenEndpoint, nil
}

// idpLink is the authorization endpoint's URL with params in its query.
func idpLink(authURL string, o IdPLoginOptions, params map[string]string) (string, error) {
	link, err := url.Parse(authURL)
	if err != nil {
		return "", fail.Wrap(fail.AuthFailed, err, "", "the identity provider %s has an unusable authorization_endpoint", o.Issuer)
	}
	q := link.Query()
	for k, v := range params {
		q.Set(k, v)
	}
	link.RawQuery = q.Encode()
	return link.String(), nil
}

// idpCode waits for the redirect back from the identity provider, on the
// receiver or pasted, and returns its authorization code.
func idpCode(ctx context.Context, o IdPLoginOptions, recv *receiver, state string) (string, error) {
	r, err := awaitCallback(ctx, recv, o.Paste, o.Note, state)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return "", loginTimeout(o.Ref.Server)
		}
		return "", err
	}
	if r.err != nil {
		return "", fail.Wrap(fail.AuthFailed, r.err, "", "cannot log in to %s at the identity provider", o.Ref.Server)
	}
	// Only an ID token whose issuer is the configured one is accepted
	// later; RFC 9207's iss, when the provider sends it, is checked too.
	if r.res.Iss != "" && r.res.Iss != o.Issuer {
		return "", fail.New(fail.AuthFailed, `check "idp.issuer"`,
			"cannot log in to %s: the authorization response comes from the issuer %q, not %q", o.Ref.Server, r.res.Iss, o.Issuer)
	}
	return r.res.Code, nil
}

// idClaims are the ID token claims mcpc checks (OpenID Connect Core
// section 3.1.3.7).
type idClaims struct {
	jwt.RegisteredClaims
	Nonce string `json:"nonce"`
}

// checkIDToken checks an ID token from the identity provider's token
// endpoint: iss exactly issuer, aud containing clientID, not expired, and
// the login's nonce ("" at a refresh, whose ID token need carry none:
// section 12.2). It returns the expiry.
//
// The signature is not verified: the ID token comes straight from the
// token endpoint over TLS (http only on loopback), which OpenID Connect
// Core 3.1.3.7 (item 6) accepts in place of the signature for the code
// flow, and mcpc only passes it back to the same identity provider, which
// verifies it itself. Fetching jwks_uri would add a request and a JWK
// parser to every login for no added protection.
func checkIDToken(raw, issuer, clientID, nonce string, now time.Time) (time.Time, error) {
	if raw == "" {
		return time.Time{}, errors.New("the token response has no id_token (is \"openid\" a scope the identity provider grants this client?)")
	}
	var c idClaims
	if _, _, err := jwt.NewParser().ParseUnverified(raw, &c); err != nil {
		return time.Time{}, errors.New("the id_token is not a JWT")
	}
	switch {
	case c.Issuer != issuer:
		return time.Time{}, fmt.Errorf("its issuer is %q, not %q", c.Issuer, issuer)
	case !slices.Contains(c.Audience, clientID):
		return time.Time{}, fmt.Errorf("its audience %q does not include %q", strings.Join(c.Audience, " "), clientID)
	case c.ExpiresAt == nil:
		return time.Time{}, errors.New("it has no expiry")
	case !now.Before(c.ExpiresAt.Time):
		return time.Time{}, fmt.Errorf("it expired at %s", c.ExpiresAt.UTC().Format(time.RFC3339))
	case nonce != "" && c.Nonce != nonce:
		return time.Time{}, errors.New("its nonce is not the one this login sent")
	}
	return c.ExpiresAt.Time, nil
}

// idTokenOptions say where an enterprise login's record is and how its
// refresh is serialized.
type idTokenOptions struct {
	Store        Store
	Ref          Ref
	LockDir      string
	ClientSecret string // the identity provider's, from its variable
	HTTPClient   *http.Client
	Now          func() time.Time
}

// storedIDToken is the enterprise login's ID token, refreshed at the
// identity provider (refresh_token grant) when it has expired. The refresh
// runs under the record's lock, re-reading the record first, so processes
// refreshing at once make one request and none spends a rotated refresh
// token another one already used.
func storedIDToken(ctx context.Context, o idTokenOptions) (string, error) {
	rec, err := loadIDToken(ctx, o)
	if err != nil || !rec.Stale(o.Now()) {
		return rec.idToken(), err
	}
	err = withRecordLock(ctx, o.LockDir, o.Ref, defaultLockWait, o.Now, func() error {
		if rec, err = loadIDToken(ctx, o); err != nil || !rec.Stale(o.Now()) {
			return err
		}
		if rec.RefreshToken == "" {
			return fail.New(fail.AuthRequired, o.Ref.Login, "the ID token stored for %s has expired", o.Ref.Server)
		}
		now := o.Now()
		tok, err := tokenRequest(ctx, o.HTTPClient, rec.TokenURL, rec.ClientID, o.ClientSecret, oauth2.AuthStyleInHeader, map[string]string{
			"grant_type":    "refresh_token",
			"refresh_token": rec.RefreshToken,
			"scope":         strings.Join(rec.Scopes, " "),
		}, now)
		var te *tokenError
		if errors.As(err, &te) && te.Code == "invalid_grant" {
			return fail.New(fail.AuthRequired, o.Ref.Login,
				"the identity provider login for %s has expired or was revoked (the refresh was refused: invalid_grant)", o.Ref.Server)
		}
		if err != nil {
			return fail.Wrap(fail.AuthFailed, boundedRefusal(ctx, err), o.Ref.Login, "cannot refresh the ID token for %s at the identity provider", o.Ref.Server)
		}
		exp, err := checkIDToken(tok.IDToken, rec.Issuer, rec.ClientID, "", now)
		if err != nil {
			return fail.Wrap(fail.AuthRequired, err, o.Ref.Login, "the identity provider's refreshed ID token for %s is refused", o.Ref.Server)
		}
		rec.IDToken, rec.Expiry, rec.Obtained = tok.IDToken, exp, now
		if tok.RefreshToken != "" { // rotation: the old one is spent
			rec.RefreshToken = tok.RefreshToken
		}
		return Save(ctx, o.Store, o.Ref, rec, now)
	})
	if err != nil {
		return "", err
	}
	return rec.IDToken, nil
}

// loadIDToken reads the record; one without an ID token (from before an
// "auth" change the key does not see) is as good as none.
func loadIDToken(ctx context.Context, o idTokenOptions) (*Record, error) {
	rec, err := Load(ctx, o.Store, o.Ref)
	if err == nil && rec.IDToken == "" {
		return nil, &fail.Error{Code: fail.AuthRequired, Msg: "not logged in to " + o.Ref.Server + " at its identity provider", Hint: o.Ref.Login, Err: ErrNotFound}
	}
	if fe := fail.As(err); fe != nil && fe.Hint == UnavailableHint {
		// Without a keyring, the way an enterprise server goes is an
		// ID token given in a variable or a file, as in CI.
		c := *fe
		c.Hint = `without a keyring, give the ID token with "idTokenEnv" or "idTokenFile" in the server's "auth" block`
		return nil, &c
	}
	return rec, err
}

func (r *Record) idToken() string {
	if r == nil {
		return ""
	}
	return r.IDToken
}
