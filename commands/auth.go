package commands

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/creds"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/urlx"
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
	name := shownName(e)
	return creds.RefFor(name, e.Server.URL, "mcpc login "+name, settings)
}

// shownName is how messages name a server: its configured name, or its URL
// with any query values redacted (they may be secrets).
func shownName(e *config.Entry) string {
	if e.File == nil && e.Server.URL != "" {
		return urlx.Redact(e.Name)
	}
	return e.Name
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
	if a := srv.Auth; a != nil && a.Type == "client_credentials" {
		opts.OAuthHandler, err = st.clientCredentials(ctx, g, e)
		opts.CredentialID = "client_credentials\x00" + a.Issuer + "\x00" + a.ClientID
	} else {
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
func (st *state) clientCredentials(ctx context.Context, g *globals, e *config.Entry) (auth.OAuthHandler, error) {
	a := e.Server.Auth
	o := creds.ClientCredentialsOptions{
		Server:   shownName(e),
		Resource: e.Server.URL,
		ClientID: a.ClientID,
		Issuer:   a.Issuer,
		Scopes:   a.Scopes,
		Alg:      a.ClientAssertionAlg,
		DPoP:     e.Server.DPoP,
		Now:      st.env.Now,
	}
	if a.ClientSecretEnv != "" {
		if o.Secret = st.env.Getenv(a.ClientSecretEnv); o.Secret == "" {
			return nil, fail.New(fail.AuthRequired, "export "+a.ClientSecretEnv+" with the client secret",
				"%s needs its client secret from the environment variable %s, which is not set", shownName(e), a.ClientSecretEnv)
		}
	} else {
		// A relative path is relative to the config file naming it.
		o.KeyFile = a.ClientAssertionKeyFile
		if !filepath.IsAbs(o.KeyFile) && e.File != nil {
			o.KeyFile = filepath.Join(filepath.Dir(e.File.Path), o.KeyFile)
		}
	}
	c, err := creds.NewClientCredentials(ctx, o)
	if err != nil {
		return nil, err
	}
	return creds.Sticky(c), nil
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
	if a != nil && a.Type == "client_credentials" {
		if v := a.ClientSecretEnv; v != "" && st.env.Getenv(v) == "" {
			return v + " not set"
		}
		return "client credentials"
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
	now := st.env.Now()
	state := "login expired"
	switch {
	case rec.Expiry.IsZero():
		state = "logged in"
	case now.Before(rec.Expiry):
		state = "logged in, expires in " + roughly(rec.Expiry.Sub(now))
	case rec.RefreshToken != "":
		state = "logged in, refreshes on next use"
	}
	if rec.DPoPKey != "" {
		state += ", DPoP-bound"
	}
	return state
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
