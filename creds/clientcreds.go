package creds

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
)

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
	if err := c.init(ctx, o.Grant, "client-credentials", "the client credentials", "check the client's registration and the server's expected audience", c.fetch); err != nil {
		return nil, err
	}
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
	if err := curveFits(c.alg, c.key, a.KeyFile, server); err != nil {
		return nil, err
	}
	return c, nil
}

// ecAlgs names, by curve size, the ECDSA algorithm each curve signs.
var ecAlgs = map[int]string{256: "ES256", 384: "ES384", 521: "ES512"}

// curveFits refuses an EC key whose curve is not its algorithm's: it
// parses, but jwt's signing would fail later with only "key is invalid".
func curveFits(alg jwt.SigningMethod, key any, file, server string) error {
	m, ok := alg.(*jwt.SigningMethodECDSA)
	k, isEC := key.(*ecdsa.PrivateKey)
	if !ok || !isEC || k.Curve.Params().BitSize == m.CurveBits {
		return nil
	}
	want, got := fmt.Sprintf("P-%d", m.CurveBits), k.Curve.Params().Name
	hint := fmt.Sprintf(`point "clientAssertionKeyFile" of %s at a %s key`, server, want)
	if fit := ecAlgs[k.Curve.Params().BitSize]; fit != "" {
		hint = fmt.Sprintf(`set "clientAssertionAlg" of %s to %s to fit this key, or point "clientAssertionKeyFile" at a %s key`, server, fit, want)
	}
	return fail.New(fail.Config, hint, "cannot use the client assertion key %s of %s: an %s key must be a %s EC key; this one is %s",
		file, server, m.Alg(), want, got)
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
