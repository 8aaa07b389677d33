package commands

import (
	"path/filepath"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/creds"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
)

// credentials is how this invocation chooses a server's credentials; the
// keyring is env's (the injected one in tests), else the OS keyring.
func credentials(env Env, g *globals, secrets *redaction.Set) client.Credentials {
	store := env.Keyring
	if store == nil {
		store = creds.OSStore(env.Getenv)
	}
	return client.Credentials{Store: store, LockDir: filepath.Join(g.dirs.State, "locks"),
		Getenv: env.Getenv, Now: env.Now, Secrets: secrets}
}
