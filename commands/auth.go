package commands

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/creds"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// keyring is the credential store: the injected one in tests, else the
// OS keyring.
func (st *state) keyring() creds.Store {
	if st.env.Keyring != nil {
		return st.env.Keyring
	}
	return creds.OSStore(st.env.Getenv)
}

// credRef names the keyring record of an HTTP server. A server without an
// "auth" block uses the defaults, as `mcpc login` does for it.
func credRef(e *config.Entry) creds.Ref {
	var settings any = e.Server.Auth
	if e.Server.Auth == nil {
		settings = &config.Auth{Type: "oauth"}
	}
	name := e.ShownName()
	return creds.RefFor(name, e.Server.URL, "mcpc login "+name, settings)
}

func lockDir(g *globals) string { return filepath.Join(g.dirs.State, "locks") }

// authHandler sets the OAuth handler for an HTTP server: client
// credentials when configured, else its stored login; none when the server
// authenticates otherwise (or not at all). A server configured for OAuth
// without a stored login fails here, before anything connects: no
// interactive flow ever starts outside `mcpc login`.
func (st *state) authHandler(ctx context.Context, g *globals, e *config.Entry, opts *client.ConnectOptions) error {
	srv := e.Server
	if srv.URL == "" || srv.BearerTokenEnv != "" {
		return nil
	}
	var err error
	a := srv.Auth
	switch {
	case a != nil && a.Type == "client_credentials":
		opts.OAuthHandler, err = st.clientCredentials(ctx, e)
		opts.CredentialID = "client_credentials\x00" + a.Issuer + "\x00" + a.ClientID
	case a != nil && a.Type == "workload":
		opts.OAuthHandler, err = st.workload(ctx, e)
		opts.CredentialID = "workload\x00" + a.Issuer + "\x00" + a.ClientID + "\x00" + a.AssertionEnv + "\x00" + a.AssertionFile + "\x00" + a.AssertionFrom + "\x00" + a.Audience
	case a != nil && a.Type == "enterprise":
		opts.OAuthHandler, err = st.enterprise(ctx, g, e)
		opts.CredentialID = "enterprise\x00" + a.Issuer + "\x00" + a.ClientID + "\x00" + a.IdP.Issuer + "\x00" + a.IdP.ClientID + "\x00" + a.IDTokenEnv + "\x00" + a.IDTokenFile
	default:
		opts.OAuthHandler, err = st.storedLogin(ctx, g, e)
		opts.CredentialID = "login\x00" + credRef(e).Key
	}
	if err != nil || opts.OAuthHandler == nil {
		opts.OAuthHandler, opts.CredentialID = nil, ""
	}
	opts.WrapHTTP = creds.WrapHTTP(opts.OAuthHandler)
	return err
}

// storedLogin serves the server's stored login; nil when there is none
// and the server is not configured for OAuth.
func (st *state) storedLogin(ctx context.Context, g *globals, e *config.Entry) (auth.OAuthHandler, error) {
	a := e.Server.Auth
	secret := ""
	if a != nil && a.ClientSecretEnv != "" {
		secret = st.env.Getenv(a.ClientSecretEnv)
		st.secrets.Add(secret)
	}
	t, err := creds.OpenTokens(ctx, creds.TokensOptions{
		Store:        st.keyring(),
		Ref:          credRef(e),
		LockDir:      lockDir(g),
		ClientSecret: secret,
		Now:          st.env.Now,
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
func (st *state) clientCredentials(ctx context.Context, e *config.Entry) (auth.OAuthHandler, error) {
	ca, err := st.clientAuth(e)
	if err != nil {
		return nil, err
	}
	c, err := creds.NewClientCredentials(ctx, creds.ClientCredentialsOptions{Grant: st.grant(e), ClientAuth: ca})
	if err != nil {
		return nil, err
	}
	return creds.Sticky(c), nil
}

// grant is what every connect-time grant names, from the server's entry.
func (st *state) grant(e *config.Entry) creds.Grant {
	a := e.Server.Auth
	return creds.Grant{Server: e.ShownName(), Resource: e.Server.URL, Issuer: a.Issuer, ClientID: a.ClientID, Scopes: a.Scopes, DPoP: e.Server.DPoP, Now: st.env.Now}
}

// clientAuth is the client's secret, from its variable, or its key file
// (relative to the config file) for a private-key JWT.
func (st *state) clientAuth(e *config.Entry) (creds.ClientAuth, error) {
	a := e.Server.Auth
	secret, err := st.secretFrom(e, a.ClientSecretEnv, "client secret")
	return creds.ClientAuth{Secret: secret, KeyFile: configRelative(e, a.ClientAssertionKeyFile), Alg: a.ClientAssertionAlg}, err
}

// secretFrom reads a secret from the variable the config names ("" when
// it names none); an unset one is exit 4 naming it.
func (st *state) secretFrom(e *config.Entry, env, what string) (string, error) {
	if env == "" {
		return "", nil
	}
	v := st.env.Getenv(env)
	st.secrets.Add(v)
	if v == "" {
		return "", fail.New(fail.AuthRequired, "export "+env+" with the "+what,
			"%s needs its %s from the environment variable %s, which is not set", e.ShownName(), what, env)
	}
	return v, nil
}

// configRelative resolves a path a config file names against that file's
// directory; "" stays "".
func configRelative(e *config.Entry, p string) string {
	if p != "" && !filepath.IsAbs(p) && e.File != nil {
		return filepath.Join(filepath.Dir(e.File.Path), p)
	}
	return p
}

// workload serves workload identity: the CI platform's token, found (or
// found missing) before anything is contacted, for one jwt-bearer grant.
func (st *state) workload(ctx context.Context, e *config.Entry) (auth.OAuthHandler, error) {
	a := e.Server.Auth
	w, err := creds.NewWorkload(ctx, creds.WorkloadOptions{
		Grant:         st.grant(e),
		AssertionEnv:  a.AssertionEnv,
		AssertionFile: configRelative(e, a.AssertionFile),
		AssertionFrom: a.AssertionFrom,
		Audience:      a.Audience,
		Getenv:        st.env.Getenv,
	})
	if err != nil {
		return nil, err
	}
	return creds.Sticky(w), nil
}

// enterprise serves enterprise-managed authorization: the ID token (from
// its variable or file, else from `mcpc login`'s keyring record) exchanged
// at the identity provider for an ID-JAG, and that for an access token.
func (st *state) enterprise(ctx context.Context, g *globals, e *config.Entry) (auth.OAuthHandler, error) {
	a := e.Server.Auth
	ca, err := st.clientAuth(e)
	if err != nil {
		return nil, err
	}
	o := creds.EnterpriseOptions{
		Grant:            st.grant(e),
		ClientAuth:       ca,
		IdPIssuer:        a.IdP.Issuer,
		IdPClientID:      a.IdP.ClientID,
		IdPTokenEndpoint: a.IdP.TokenEndpoint,
		IDTokenEnv:       a.IDTokenEnv,
		IDTokenFile:      configRelative(e, a.IDTokenFile),
		Store:            st.keyring(),
		Ref:              credRef(e),
		LockDir:          lockDir(g),
		Getenv:           st.env.Getenv,
	}
	if o.IdPSecret, err = st.secretFrom(e, a.IdP.ClientSecretEnv, "identity provider client secret"); err != nil {
		return nil, err
	}
	h, err := creds.NewEnterprise(ctx, o)
	if err != nil {
		return nil, err
	}
	return creds.Sticky(h), nil
}

// authState says, for `mcpc list`, how a configured HTTP server
// authenticates and whether that is ready; "" for stdio servers and for
// HTTP servers with no credentials at all. It never contacts the server.
func (st *state) authState(ctx context.Context, g *globals, cfg *config.Config, name string) string {
	e, err := cfg.Lookup(name)
	if err != nil || e.Server.URL == "" {
		return ""
	}
	srv := e.Server
	if v := srv.BearerTokenEnv; v != "" {
		if st.env.Getenv(v) == "" {
			return v + " not set"
		}
		return "token from " + v
	}
	a := srv.Auth
	switch {
	case a != nil && a.Type == "client_credentials":
		if v := a.ClientSecretEnv; v != "" && st.env.Getenv(v) == "" {
			return v + " not set"
		}
		return "client credentials"
	case a != nil && a.Type == "workload":
		return "workload (" + st.workloadSource(e) + ")"
	case a != nil && a.Type == "enterprise":
		s := "enterprise via " + hostOf(a.IdP.Issuer)
		missing := st.enterpriseMissing(e)
		if missing == "" && a.IDTokenEnv == "" && a.IDTokenFile == "" {
			missing = st.enterpriseLogin(ctx, e)
		}
		if missing != "" {
			s += " (" + missing + ")"
		}
		return s
	}
	rec, err := creds.Load(ctx, st.keyring(), credRef(e))
	switch {
	case err != nil && a == nil:
		return ""
	case errors.Is(err, creds.ErrNotFound):
		return "needs login"
	case err != nil:
		return "keyring unavailable"
	}
	state := loginState(rec, st.env.Now())
	if rec.DPoPKey != "" {
		state += ", DPoP-bound"
	}
	return state
}

// workloadSource names where the workload token comes from, or what is
// missing for it, without reading the token.
func (st *state) workloadSource(e *config.Entry) string {
	a := e.Server.Auth
	switch {
	case a.AssertionFrom != "":
		for _, v := range creds.GitHubVars {
			if st.env.Getenv(v) == "" {
				return a.AssertionFrom + ", " + v + " not set"
			}
		}
		return a.AssertionFrom
	case a.AssertionEnv != "":
		if st.env.Getenv(a.AssertionEnv) == "" {
			return a.AssertionEnv + " not set"
		}
		return a.AssertionEnv
	}
	if _, err := os.Stat(configRelative(e, a.AssertionFile)); err != nil {
		return a.AssertionFile + " missing"
	}
	return a.AssertionFile
}

// enterpriseMissing is what an enterprise server lacks before it can
// connect, or "".
func (st *state) enterpriseMissing(e *config.Entry) string {
	a := e.Server.Auth
	for _, v := range []string{a.ClientSecretEnv, a.IdP.ClientSecretEnv, a.IDTokenEnv} {
		if v != "" && st.env.Getenv(v) == "" {
			return v + " not set"
		}
	}
	if a.IDTokenFile != "" {
		if _, err := os.Stat(configRelative(e, a.IDTokenFile)); err != nil {
			return a.IDTokenFile + " missing"
		}
	}
	return ""
}

// enterpriseLogin is the state of an enterprise server's `mcpc login`
// (its ID token in the keyring), read without contacting anything.
func (st *state) enterpriseLogin(ctx context.Context, e *config.Entry) string {
	rec, err := creds.Load(ctx, st.keyring(), credRef(e))
	switch {
	case errors.Is(err, creds.ErrNotFound), err == nil && rec.IDToken == "":
		return "needs login"
	case err != nil:
		return "keyring unavailable"
	}
	return loginState(rec, st.env.Now())
}

// loginState is how long a stored login's token lasts, for `mcpc list`.
func loginState(rec *creds.Record, now time.Time) string {
	switch {
	case rec.Expiry.IsZero():
		return "logged in"
	case now.Before(rec.Expiry):
		return "logged in, expires in " + roughly(rec.Expiry.Sub(now))
	case rec.RefreshToken != "":
		return "logged in, refreshes on next use"
	}
	return "login expired"
}

// hostOf is a URL's host, or the URL when it has none.
func hostOf(s string) string {
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		return u.Host
	}
	return s
}

// roughly is a duration as a person says it: 3d, 5h20m, 42m, <1m.
func roughly(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	case d >= time.Hour:
		return fmt.Sprintf("%dh%02dm", d/time.Hour, d%time.Hour/time.Minute)
	case d >= time.Minute:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return "<1m"
}

// registerHeaderSecrets registers what srv's requests carry from the
// environment: the token of "bearerTokenEnv" and the value of every
// ${VAR} in its headers (a default written in the file is no secret).
func (st *state) registerHeaderSecrets(srv *config.Server) {
	if srv.BearerTokenEnv != "" {
		st.secrets.Add(st.env.Getenv(srv.BearerTokenEnv))
	}
	for _, v := range srv.Headers {
		_, _ = config.Expand(v, func(k string) string {
			val := st.env.Getenv(k)
			st.secrets.Add(val)
			return val
		})
	}
}
