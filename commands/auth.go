package commands

import (
	"context"
	"path/filepath"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
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

// credentials is how this invocation chooses a server's credentials.
func (st *state) credentials(g *globals) client.Credentials {
	return client.Credentials{Store: st.keyring(), LockDir: filepath.Join(g.dirs.State, "locks"),
		Getenv: st.env.Getenv, Now: st.env.Now, Secrets: st.secrets}
}

// authState says, for `mcpc list`, how a configured HTTP server
// authenticates and whether that is ready (client.Credentials.Status);
// "" for a name that does not resolve.
func authState(ctx context.Context, c client.Credentials, cfg *config.Config, name string) string {
	e, err := cfg.Lookup(name)
	if err != nil {
		return ""
	}
	return c.Status(ctx, e)
}
