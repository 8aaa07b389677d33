package commands

import (
	"context"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/creds"
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
func credRef(e *client.Entry) creds.Ref {
	var settings any = e.Server.Auth
	if e.Server.Auth == nil {
		settings = &client.Auth{Type: "oauth"}
	}
	return creds.RefFor(e.Name, e.Server.URL, "mcpc login "+e.Name, settings)
}

func lockDir(g *globals) string { return filepath.Join(g.dirs.State, "locks") }

// storedLogin returns the OAuth handler serving an HTTP server's stored
// login, or nil when the server authenticates otherwise (or not at all).
// A server configured for OAuth without a stored login fails here, before
// anything connects: no interactive flow ever starts outside `mcpc login`.
func (st *state) storedLogin(ctx context.Context, g *globals, e *client.Entry) (auth.OAuthHandler, error) {
	srv := e.Server
	if srv.URL == "" || srv.BearerTokenEnv != "" {
		return nil, nil
	}
	a := srv.Auth
	if a != nil && a.Type != "oauth" {
		return nil, nil
	}
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
	return t, nil
}
