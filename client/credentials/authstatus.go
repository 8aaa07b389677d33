package credentials

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/creds"
)

// Status says how a configured HTTP server authenticates and whether that
// is ready ("logged in, expires in 5h20m", "CS not set", "needs login"…);
// "" for stdio servers and for HTTP servers with no credentials at all.
// It reads the environment, files and the keyring; it never contacts the
// server, and never reads a secret's value beyond whether it is set.
func (c Credentials) Status(ctx context.Context, e *config.Entry) string {
	if e.Server.URL == "" {
		return ""
	}
	srv := e.Server
	if v := srv.BearerTokenEnv; v != "" {
		if c.Getenv(v) == "" {
			return v + " not set"
		}
		return "token from " + v
	}
	if argv, key := srv.HelperCommand(); argv != nil {
		// Never run here: a helper may prompt, or cost a request.
		return key + " " + filepath.Base(argv[0])
	}
	a := srv.Auth
	switch {
	case a != nil && a.Type == "client_credentials":
		if v := a.ClientSecretEnv; v != "" && c.Getenv(v) == "" {
			return v + " not set"
		}
		return "client credentials"
	case a != nil && a.Type == "workload":
		return "workload (" + c.workloadSource(e) + ")"
	case a != nil && a.Type == "enterprise":
		s := "enterprise via " + hostOf(a.IdP.Issuer)
		missing := c.enterpriseMissing(e)
		if missing == "" && a.IdPLogin() {
			missing = c.enterpriseLogin(ctx, e)
		}
		if missing != "" {
			s += " (" + missing + ")"
		}
		return s
	}
	rec, err := creds.Load(ctx, c.Store, CredentialRef(e))
	switch {
	case err != nil && a == nil:
		return ""
	case errors.Is(err, creds.ErrNotFound):
		return "needs login"
	case err != nil:
		return "keyring unavailable"
	}
	state := loginState(rec, c.Now())
	if rec.DPoPKey != "" {
		state += ", DPoP-bound"
	}
	return state
}

// workloadSource names where the workload token comes from, or what is
// missing for it, without reading the token.
func (c Credentials) workloadSource(e *config.Entry) string {
	a := e.Server.Auth
	switch {
	case a.AssertionFrom != "":
		for _, v := range creds.GitHubVars {
			if c.Getenv(v) == "" {
				return a.AssertionFrom + ", " + v + " not set"
			}
		}
		return a.AssertionFrom
	case a.AssertionEnv != "":
		if c.Getenv(a.AssertionEnv) == "" {
			return a.AssertionEnv + " not set"
		}
		return a.AssertionEnv
	}
	if _, err := os.Stat(ConfigRelative(e, a.AssertionFile)); err != nil {
		return a.AssertionFile + " missing"
	}
	return a.AssertionFile
}

// enterpriseMissing is what an enterprise server lacks before it can
// connect, or "".
func (c Credentials) enterpriseMissing(e *config.Entry) string {
	a := e.Server.Auth
	for _, v := range []string{a.ClientSecretEnv, a.IdP.ClientSecretEnv, a.IDTokenEnv} {
		if v != "" && c.Getenv(v) == "" {
			return v + " not set"
		}
	}
	if a.IDTokenFile != "" {
		if _, err := os.Stat(ConfigRelative(e, a.IDTokenFile)); err != nil {
			return a.IDTokenFile + " missing"
		}
	}
	return ""
}

// enterpriseLogin is the state of an enterprise server's `mcpc login`
// (its ID token in the keyring), read without contacting anything.
func (c Credentials) enterpriseLogin(ctx context.Context, e *config.Entry) string {
	rec, err := creds.Load(ctx, c.Store, CredentialRef(e))
	switch {
	case errors.Is(err, creds.ErrNotFound), err == nil && rec.IDToken == "":
		return "needs login"
	case err != nil:
		return "keyring unavailable"
	}
	return loginState(rec, c.Now())
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

// StatusOf is Status for the server cfg names; "" for a name that does
// not resolve.
func (c Credentials) StatusOf(ctx context.Context, cfg *config.Config, name string) string {
	e, err := cfg.Lookup(name)
	if err != nil {
		return ""
	}
	return c.Status(ctx, e)
}
