package credentials

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/creds"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// CredentialRef names the keyring record of an HTTP server. A server without an
// "auth" block uses the defaults, as `mcpc login` does for it.
func CredentialRef(e *config.Entry) creds.Ref {
	var settings any = e.Server.Auth
	if e.Server.Auth == nil {
		settings = &config.Auth{Type: "oauth"}
	}
	name := e.ShownName()
	return creds.RefFor(name, e.Server.URL, "mcpc login "+name, settings)
}

// Credentials is what choosing a server's credentials reads from the
// invocation.
type Credentials struct {
	Store   creds.Store // the keyring
	LockDir string      // where refreshes take their file locks
	Getenv  func(string) string
	// Environ is the invocation's environment, a credential helper's.
	Environ func() []string
	Now     func() time.Time
	// Secrets receives every secret read from the environment, so that
	// nothing printed shows it.
	Secrets *redact.Set
}

// Apply chooses the credential flow for an HTTP server and sets opts'
// OAuthHandler, CredentialID (which credential the handler serves: a
// session is shared only under the same one) and WrapHTTP: client
// credentials, workload identity or enterprise authorization when the
// "auth" block says so, else the stored login; none when the server
// authenticates otherwise (or not at all). A server configured for OAuth
// without a stored login fails here, before anything connects: no
// interactive flow ever starts outside a login.
func (c Credentials) Apply(ctx context.Context, e *config.Entry, opts *conn.ConnectOptions) error {
	srv := e.Server
	if srv.URL == "" || srv.BearerTokenEnv != "" {
		return nil
	}
	if argv, key := srv.HelperCommand(); argv != nil {
		c.helper(e, opts, argv, key)
		return nil
	}
	var err error
	a := srv.Auth
	switch {
	case a != nil && a.Type == "client_credentials":
		opts.OAuthHandler, err = c.clientCredentials(ctx, e)
		opts.CredentialID = "client_credentials\x00" + a.Issuer + "\x00" + a.ClientID
	case a != nil && a.Type == "workload":
		opts.OAuthHandler, err = c.workload(ctx, e)
		opts.CredentialID = "workload\x00" + a.Issuer + "\x00" + a.ClientID + "\x00" + a.AssertionEnv + "\x00" + a.AssertionFile + "\x00" + a.AssertionFrom + "\x00" + a.Audience
	case a != nil && a.Type == "enterprise":
		opts.OAuthHandler, err = c.enterprise(ctx, e)
		opts.CredentialID = "enterprise\x00" + a.Issuer + "\x00" + a.ClientID + "\x00" + a.IdP.Issuer + "\x00" + a.IdP.ClientID + "\x00" + a.IDTokenEnv + "\x00" + a.IDTokenFile
	default:
		opts.OAuthHandler, err = c.storedLogin(ctx, e)
		opts.CredentialID = "login\x00" + CredentialRef(e).Key
	}
	if err != nil || opts.OAuthHandler == nil {
		opts.OAuthHandler, opts.CredentialID = nil, ""
	}
	opts.WrapHTTP = creds.WrapHTTP(opts.OAuthHandler)
	return err
}

// helper sets opts up for a credential helper: run on the first request
// (a session's use never runs it: the holder does), its headers added
// below mcpc's own. The session's credential is the command, never what
// it prints: the holder runs it and keeps what it printed.
func (c Credentials) helper(e *config.Entry, opts *conn.ConnectOptions, argv []string, key string) {
	srv := e.Server
	origin := ""
	if u, err := url.Parse(srv.URL); err == nil {
		origin = urlx.Origin(u)
	}
	var env []string
	if c.Environ != nil {
		env = c.Environ()
	}
	// What the helper is for, as Claude Code tells its headersHelper: one
	// helper can serve several servers.
	env = append(env, "MCPC_SERVER_NAME="+e.ShownName(), "MCPC_SERVER_URL="+srv.URL)
	h := creds.NewHelper(creds.HelperOptions{Server: e.ShownName(), Key: key, Argv: argv, Dir: e.Dir(opts.Cwd), Env: env,
		Bearer: key == "bearerTokenCommand", TTL: time.Duration(srv.HeadersTTL), Origin: origin, Secrets: c.Secrets, Now: c.Now, Trace: opts.Verbose})
	opts.WrapHTTP = h.WrapHTTP
	opts.CredentialID = key + "\x00" + strings.Join(argv, "\x00")
}

// storedLogin serves the server's stored login; nil when there is none
// and the server is not configured for OAuth.
func (c Credentials) storedLogin(ctx context.Context, e *config.Entry) (auth.OAuthHandler, error) {
	a := e.Server.Auth
	secret := ""
	if a != nil && a.ClientSecretEnv != "" {
		secret = c.Getenv(a.ClientSecretEnv)
		c.Secrets.Add(secret)
	}
	t, err := creds.OpenTokens(ctx, creds.TokensOptions{
		Store:        c.Store,
		Ref:          CredentialRef(e),
		LockDir:      c.LockDir,
		ClientSecret: secret,
		Now:          c.Now,
	})
	if err != nil {
		if a == nil {
			// Not configured for OAuth: a missing login (or keyring)
			// just means the server is reached without a token.
			return nil, nil
		}
		return nil, err
	}
	return creds.Sticky(t), nil
}

// clientCredentials reads the secret from its variable at connect time
// (missing: exit 4 naming it) or the key file for a JWT assertion.
func (c Credentials) clientCredentials(ctx context.Context, e *config.Entry) (auth.OAuthHandler, error) {
	ca, err := c.clientAuth(e)
	if err != nil {
		return nil, err
	}
	h, err := creds.NewClientCredentials(ctx, creds.ClientCredentialsOptions{Grant: c.grant(e), ClientAuth: ca})
	if err != nil {
		return nil, err
	}
	return creds.Sticky(h), nil
}

// grant is what every connect-time grant names, from the server's entry.
func (c Credentials) grant(e *config.Entry) creds.Grant {
	a := e.Server.Auth
	return creds.Grant{Server: e.ShownName(), Resource: e.Server.URL, Issuer: a.Issuer, ClientID: a.ClientID, Scopes: a.Scopes, DPoP: e.Server.DPoP, Now: c.Now}
}

// clientAuth is the client's secret, from its variable, or its key file
// (relative to the config file) for a private-key JWT.
func (c Credentials) clientAuth(e *config.Entry) (creds.ClientAuth, error) {
	a := e.Server.Auth
	secret, err := c.SecretFrom(e, a.ClientSecretEnv, "client secret")
	return creds.ClientAuth{Secret: secret, KeyFile: ConfigRelative(e, a.ClientAssertionKeyFile), Alg: a.ClientAssertionAlg}, err
}

// SecretFrom reads a secret from the variable the config names ("" when
// it names none); an unset one is exit 4 naming it.
func (c Credentials) SecretFrom(e *config.Entry, env, what string) (string, error) {
	if env == "" {
		return "", nil
	}
	v := c.Getenv(env)
	c.Secrets.Add(v)
	if v == "" {
		return "", fail.New(fail.AuthRequired, "export "+env+" with the "+what,
			"%s needs its %s from the environment variable %s, which is not set", e.ShownName(), what, env)
	}
	return v, nil
}

// ConfigRelative resolves a path a config file names against that file's
// directory; "" stays "".
func ConfigRelative(e *config.Entry, p string) string {
	if p != "" && !filepath.IsAbs(p) && e.File != nil {
		return filepath.Join(filepath.Dir(e.File.Path), p)
	}
	return p
}

// workload serves workload identity: the CI platform's token, found (or
// found missing) before anything is contacted, for one jwt-bearer grant.
func (c Credentials) workload(ctx context.Context, e *config.Entry) (auth.OAuthHandler, error) {
	a := e.Server.Auth
	w, err := creds.NewWorkload(ctx, creds.WorkloadOptions{
		Grant:         c.grant(e),
		AssertionEnv:  a.AssertionEnv,
		AssertionFile: ConfigRelative(e, a.AssertionFile),
		AssertionFrom: a.AssertionFrom,
		Audience:      a.Audience,
		Getenv:        c.Getenv,
	})
	if err != nil {
		return nil, err
	}
	return creds.Sticky(w), nil
}

// enterprise serves enterprise-managed authorization: the ID token (from
// its variable or file, else from `mcpc login`'s keyring record) exchanged
// at the identity provider for an ID-JAG, and that for an access token.
func (c Credentials) enterprise(ctx context.Context, e *config.Entry) (auth.OAuthHandler, error) {
	a := e.Server.Auth
	ca, err := c.clientAuth(e)
	if err != nil {
		return nil, err
	}
	o := creds.EnterpriseOptions{
		Grant:            c.grant(e),
		ClientAuth:       ca,
		IdPIssuer:        a.IdP.Issuer,
		IdPClientID:      a.IdP.ClientID,
		IdPTokenEndpoint: a.IdP.TokenEndpoint,
		IDTokenEnv:       a.IDTokenEnv,
		IDTokenFile:      ConfigRelative(e, a.IDTokenFile),
		Store:            c.Store,
		Ref:              CredentialRef(e),
		LockDir:          c.LockDir,
		Getenv:           c.Getenv,
	}
	if o.IdPSecret, err = c.SecretFrom(e, a.IdP.ClientSecretEnv, "identity provider client secret"); err != nil {
		return nil, err
	}
	h, err := creds.NewEnterprise(ctx, o)
	if err != nil {
		return nil, err
	}
	return creds.Sticky(h), nil
}

// LoginOptions are the settings of an interactive login to e's server
// from its "auth" block: the keyring record, a pre-registered client and
// its secret (from its variable, registered as a secret: unset is exit
// 4), the issuer such a secret may go to (none is exit 3: any
// authorization server the MCP server names would receive it), scopes,
// redirect port and DPoP. How the user is shown the link is the caller's.
func (c Credentials) LoginOptions(e *config.Entry) (creds.LoginOptions, error) {
	lo := creds.LoginOptions{Store: c.Store, Ref: CredentialRef(e), LockDir: c.LockDir, Now: c.Now, DPoP: e.Server.DPoP}
	a := e.Server.Auth
	if a == nil {
		return lo, nil
	}
	lo.ClientID, lo.ClientMetadataURL, lo.Scopes, lo.RedirectPort, lo.Issuer = a.ClientID, a.ClientMetadataURL, a.Scopes, a.RedirectPort, a.Issuer
	if a.ClientSecretEnv == "" {
		return lo, nil
	}
	lo.ClientSecret = c.Getenv(a.ClientSecretEnv)
	c.Secrets.Add(lo.ClientSecret)
	if lo.ClientSecret == "" {
		return lo, fail.New(fail.AuthRequired, "export "+a.ClientSecretEnv+" with the client secret",
			"%q needs its client secret from the environment variable %s, which is not set", e.ShownName(), a.ClientSecretEnv)
	}
	if a.Issuer == "" {
		return lo, fail.New(fail.Config, `add "issuer" to the server's "auth" block: the authorization server the client was registered with`,
			"%q has a client secret but no \"issuer\": any authorization server the MCP server names could receive it", e.ShownName())
	}
	return lo, nil
}

// IdPLoginOptions are the settings of the OpenID Connect login of an
// enterprise server at its identity provider, from the "auth" block's
// "idp": the keyring record, the client and its secret (from its
// variable: unset is exit 4). How the user is shown the link is the
// caller's.
func (c Credentials) IdPLoginOptions(e *config.Entry) (creds.IdPLoginOptions, error) {
	idp := e.Server.Auth.IdP
	secret, err := c.SecretFrom(e, idp.ClientSecretEnv, "identity provider client secret")
	return creds.IdPLoginOptions{Store: c.Store, Ref: CredentialRef(e), LockDir: c.LockDir, Issuer: idp.Issuer, ClientID: idp.ClientID, ClientSecret: secret,
		TokenEndpoint: idp.TokenEndpoint, Scopes: idp.Scopes, Now: c.Now}, err
}

// RegisterEntrySecrets registers what entry's server is sent from the
// environment: the token of "bearerTokenEnv", the value of every ${VAR} in
// its headers and in its "env" (a default or a value written in the file
// is no secret), and its envFile's values (relative to cwd for an entry of
// the command line). A stdio server that echoes its environment on stderr
// then shows none of them, wherever that goes.
func (c Credentials) RegisterEntrySecrets(entry *config.Entry, cwd string) {
	srv := entry.Server
	if srv.BearerTokenEnv != "" {
		c.Secrets.Add(c.Getenv(srv.BearerTokenEnv))
	}
	for _, values := range []map[string]string{srv.Headers, srv.Env} {
		for _, v := range values {
			_, _ = config.Expand(v, func(k string) string {
				val := c.Getenv(k)
				c.Secrets.Add(val)
				return val
			})
		}
	}
	if srv.EnvFile != "" {
		// A file that cannot be read fails the connect, which says why.
		vars, _ := entry.EnvFileVars(cwd)
		for _, kv := range vars {
			_, v, _ := strings.Cut(kv, "=")
			c.Secrets.Add(v)
		}
	}
}
