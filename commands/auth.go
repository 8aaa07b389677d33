package commands

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

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
// authenticates and whether that is ready; "" for stdio servers and for
// HTTP servers with no credentials at all. It never contacts the server.
func (st *state) authState(ctx context.Context, keyring creds.Store, cfg *config.Config, name string) string {
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
			missing = st.enterpriseLogin(ctx, keyring, e)
		}
		if missing != "" {
			s += " (" + missing + ")"
		}
		return s
	}
	rec, err := creds.Load(ctx, keyring, client.CredentialRef(e))
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
	if _, err := os.Stat(client.ConfigRelative(e, a.AssertionFile)); err != nil {
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
		if _, err := os.Stat(client.ConfigRelative(e, a.IDTokenFile)); err != nil {
			return a.IDTokenFile + " missing"
		}
	}
	return ""
}

// enterpriseLogin is the state of an enterprise server's `mcpc login`
// (its ID token in the keyring), read without contacting anything.
func (st *state) enterpriseLogin(ctx context.Context, keyring creds.Store, e *config.Entry) string {
	rec, err := creds.Load(ctx, keyring, client.CredentialRef(e))
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
