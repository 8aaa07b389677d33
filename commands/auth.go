package commands

import (
	"path/filepath"

	"github.com/mcpc-dev/mcpc/client/credentials"
	"github.com/mcpc-dev/mcpc/creds"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
)

// credentialsOf is how this invocation chooses a server's credentials; the
// keyring is env's (the injected one in tests), else the OS keyring.
func credentialsOf(env Env, g *globals, secrets *redaction.Set) credentials.Credentials {
	store := env.Keyring
	if store == nil {
		store = creds.OSStore(env.Getenv)
	}
	return credentials.Credentials{Store: store, LockDir: filepath.Join(g.dirs.State, "locks"),
		Getenv: env.Getenv, Environ: env.Environ, Now: env.Now, Secrets: secrets}
}
