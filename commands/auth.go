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
