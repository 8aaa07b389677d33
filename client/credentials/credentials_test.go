package credentials

import (
	"context"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/creds"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
)

// Apply chooses the credential flow from the entry, before anything is
// contacted, and names the credential it chose.
func TestCredentialsApply(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	env := map[string]string{"TOKEN": "tok"}
	store := creds.NewMemStore()
	secrets := redact.NewSet()
	c := Credentials{Store: store, LockDir: t.TempDir(), Getenv: func(k string) string { return env[k] }, Now: func() time.Time { return now }, Secrets: secrets}
	file := &config.File{Path: "/cfg/config.json"}
	entry := func(srv *config.Server) *config.Entry { return &config.Entry{Name: "gh", Server: srv, File: file} }
	const u = "https://mcp.example.com/mcp"

	// Not HTTP, or a bearer token from the environment: no handler.
	for _, srv := range []*config.Server{{Command: "srv"}, {URL: u, BearerTokenEnv: "TOKEN"}} {
		var o conn.ConnectOptions
		if err := c.Apply(ctx, entry(srv), &o); err != nil || o.OAuthHandler != nil || o.CredentialID != "" {
			t.Errorf("%+v: handler %v, id %q, err %v", srv, o.OAuthHandler, o.CredentialID, err)
		}
	}
	// No "auth" block and no stored login: reached without a token.
	var o conn.ConnectOptions
	if err := c.Apply(ctx, entry(&config.Server{URL: u}), &o); err != nil || o.OAuthHandler != nil || o.CredentialID != "" {
		t.Errorf("no auth, no login: handler %v, id %q, err %v", o.OAuthHandler, o.CredentialID, err)
	}
	// Configured for OAuth without a stored login: exit 4 naming the login.
	e := entry(&config.Server{URL: u, Auth: &config.Auth{Type: "oauth"}})
	err := c.Apply(ctx, e, &o)
	if fail.CodeOf(err) != fail.AuthRequired || err.Error() != "not logged in to gh" || fail.As(err).Hint != "mcpc login gh" || o.OAuthHandler != nil {
		t.Errorf("oauth, no login: %v (hint %q)", err, fail.As(err).Hint)
	}
	// A stored login serves, named by its keyring key.
	ref := CredentialRef(e)
	if err := creds.Save(ctx, store, ref, &creds.Record{AccessToken: "at", Expiry: now.Add(time.Hour)}, now); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(ctx, e, &o); err != nil || o.OAuthHandler == nil || o.CredentialID != "login\x00"+ref.Key || o.WrapHTTP == nil {
		t.Errorf("stored login: handler %v, id %q, err %v", o.OAuthHandler, o.CredentialID, err)
	}
	// A client secret from an unset variable: exit 4 naming it, nothing set.
	e = entry(&config.Server{URL: u, Auth: &config.Auth{Type: "client_credentials", Issuer: "https://as.example.com", ClientID: "cid", ClientSecretEnv: "CS"}})
	o = conn.ConnectOptions{}
	err = c.Apply(ctx, e, &o)
	if fail.CodeOf(err) != fail.AuthRequired || err.Error() != "gh needs its client secret from the environment variable CS, which is not set" || o.OAuthHandler != nil || o.CredentialID != "" {
		t.Errorf("client secret unset: %v, id %q", err, o.CredentialID)
	}
	// A secret read is registered for redaction.
	env["CS"] = "s3cret-value-long"
	if _, err := c.SecretFrom(e, "CS", "client secret"); err != nil || secrets.String("x s3cret-value-long y") != "x "+redact.Mark+" y" {
		t.Errorf("secret not registered: %v %q", err, secrets.String("x s3cret-value-long y"))
	}
}

func TestConfigRelative(t *testing.T) {
	e := &config.Entry{File: &config.File{Path: "/cfg/config.json"}}
	for in, want := range map[string]string{"": "", "key.pem": "/cfg/key.pem", "/abs/key.pem": "/abs/key.pem"} {
		if got := ConfigRelative(e, in); got != want {
			t.Errorf("ConfigRelative(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ConfigRelative(&config.Entry{}, "key.pem"); got != "key.pem" {
		t.Errorf("command line entry: %q", got)
	}
}

// A login's settings come from the "auth" block; a client secret must be
// set and bound to an issuer before anything starts.
func TestLoginOptions(t *testing.T) {
	env := map[string]string{"CS": "client-secret-value"}
	secrets := redact.NewSet()
	c := Credentials{Store: creds.NewMemStore(), Getenv: func(k string) string { return env[k] }, Now: time.Now, Secrets: secrets}
	file := &config.File{Path: "/cfg/config.json"}
	e := &config.Entry{Name: "gh", File: file, Server: &config.Server{URL: "https://mcp.example.com/mcp",
		Auth: &config.Auth{Type: "oauth", ClientID: "cid", ClientSecretEnv: "CS", Issuer: "https://as.example.com", Scopes: []string{"read"}, RedirectPort: 8765}}}
	lo, err := c.LoginOptions(e)
	if err != nil || lo.ClientID != "cid" || lo.ClientSecret != "client-secret-value" || lo.Issuer != "https://as.example.com" ||
		lo.RedirectPort != 8765 || len(lo.Scopes) != 1 || lo.Ref.Key != CredentialRef(e).Key || lo.Store == nil {
		t.Fatalf("%+v, %v", lo, err)
	}
	if got := secrets.String("client-secret-value"); got != redact.Mark {
		t.Errorf("secret not registered: %q", got)
	}
	e.Server.Auth.Issuer = ""
	if _, err := c.LoginOptions(e); fail.CodeOf(err) != fail.Config || err.Error() != `"gh" has a client secret but no "issuer": any authorization server the MCP server names could receive it` {
		t.Errorf("no issuer: %v", err)
	}
	delete(env, "CS")
	if _, err := c.LoginOptions(e); fail.CodeOf(err) != fail.AuthRequired || err.Error() != `"gh" needs its client secret from the environment variable CS, which is not set` {
		t.Errorf("secret unset: %v", err)
	}
	// No "auth" block: dynamic registration, nothing to check.
	e.Server.Auth = nil
	if lo, err := c.LoginOptions(e); err != nil || lo.ClientID != "" {
		t.Errorf("no auth: %+v %v", lo, err)
	}
}

// An enterprise login at the identity provider reads its client from the
// "idp" block; its secret must be set.
func TestIdPLoginOptions(t *testing.T) {
	env := map[string]string{}
	c := Credentials{Store: creds.NewMemStore(), Getenv: func(k string) string { return env[k] }, Now: time.Now}
	a := &config.Auth{Type: "enterprise", Issuer: "https://as.example.com", ClientID: "cid",
		IdP: &config.IdP{Issuer: "https://idp.example.com", ClientID: "idp-cid", ClientSecretEnv: "IDPS", Scopes: []string{"openid"}}}
	e := &config.Entry{Name: "corp", File: &config.File{Path: "/cfg/config.json"}, Server: &config.Server{URL: "https://mcp.example.com/mcp", Auth: a}}
	if !a.IdPLogin() {
		t.Fatal("an enterprise block without idTokenEnv or idTokenFile logs in at the IdP")
	}
	if _, err := c.IdPLoginOptions(e); fail.CodeOf(err) != fail.AuthRequired ||
		err.Error() != "corp needs its identity provider client secret from the environment variable IDPS, which is not set" {
		t.Errorf("secret unset: %v", err)
	}
	env["IDPS"] = "idp-secret-value"
	lo, err := c.IdPLoginOptions(e)
	if err != nil || lo.Issuer != "https://idp.example.com" || lo.ClientID != "idp-cid" || lo.ClientSecret != "idp-secret-value" || lo.Ref.Key != CredentialRef(e).Key {
		t.Errorf("%+v %v", lo, err)
	}
	a.IDTokenEnv = "IDT"
	if a.IdPLogin() {
		t.Error("an ID token from a variable needs no login")
	}
}

// What a server is sent from the environment is registered; a default
// written in the file is not.
func TestRegisterEntrySecrets(t *testing.T) {
	env := map[string]string{"TOKEN": "bearer-token-value", "KEY": "api-key-value", "DB": "database-password"}
	secrets := redact.NewSet()
	c := Credentials{Getenv: func(k string) string { return env[k] }, Secrets: secrets}
	c.RegisterEntrySecrets(&config.Entry{Server: &config.Server{URL: "https://x.example", BearerTokenEnv: "TOKEN",
		Headers: map[string]string{"X-Key": "${KEY}", "X-Team": "${TEAM:-default-team-name}"}}}, t.TempDir())
	c.RegisterEntrySecrets(&config.Entry{Server: &config.Server{Command: "srv", Env: map[string]string{"PASS": "${DB}"}}}, t.TempDir())
	if got := secrets.String("bearer-token-value api-key-value default-team-name database-password"); got != redact.Mark+" "+redact.Mark+" default-team-name "+redact.Mark {
		t.Errorf("%q", got)
	}
}

// Only an HTTP server that logs in with OAuth (or at an identity
// provider) has a login; the others are refused with where their
// credential comes from.
func TestCheckLoginTarget(t *testing.T) {
	entry := func(url string, a *config.Auth) *config.Entry {
		return &config.Entry{Name: "s", Server: &config.Server{URL: url, Command: "srv", Auth: a}}
	}
	for _, e := range []*config.Entry{
		entry("https://s.example/mcp", nil),
		entry("https://s.example/mcp", &config.Auth{Type: "oauth"}),
		entry("https://s.example/mcp", &config.Auth{Type: "enterprise"}),
	} {
		if err := CheckLoginTarget(e, "login"); err != nil {
			t.Errorf("%+v: %v", e.Server.Auth, err)
		}
	}
	for _, c := range []struct {
		e         *config.Entry
		code      fail.Code
		msg, hint string
	}{
		{entry("", nil), fail.Usage, `mcpc logout applies to HTTP servers; "s" runs over stdio`, ""},
		{entry("https://s.example/mcp", &config.Auth{Type: "client_credentials"}), fail.Config,
			`"s" authenticates with client_credentials: there is no login to logout`, "client credentials are fetched at connect time and never stored"},
		{entry("https://s.example/mcp", &config.Auth{Type: "workload"}), fail.Config,
			`"s" authenticates with workload: there is no login to logout`, `the workload token comes from "assertionEnv", "assertionFile" or "assertionFrom" on each invocation, and nothing is stored`},
		{entry("https://s.example/mcp", &config.Auth{Type: "enterprise", IDTokenEnv: "T"}), fail.Config,
			`"s" authenticates with enterprise: there is no login to logout`, `the ID token comes from "idTokenEnv" or "idTokenFile"; remove both to log in at the identity provider with mcpc login`},
	} {
		err := CheckLoginTarget(c.e, "logout")
		if fail.CodeOf(err) != c.code || err.Error() != c.msg || fail.As(err).Hint != c.hint {
			t.Errorf("%+v: %v (hint %q), want %s %q (hint %q)", c.e.Server.Auth, err, fail.As(err).Hint, c.code, c.msg, c.hint)
		}
	}
}

// Logout deletes the stored login once: the second finds none.
func TestLogout(t *testing.T) {
	ctx := context.Background()
	c := Credentials{Store: creds.NewMemStore(), LockDir: t.TempDir(), Now: time.Now}
	e := &config.Entry{Name: "s", Server: &config.Server{URL: "https://s.example/mcp"}}
	if err := creds.Save(ctx, c.Store, CredentialRef(e), &creds.Record{AccessToken: "t", Issuer: "https://as.example"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	for i, want := range []Logout{{WasStored: true}, {WasStored: false}} {
		r, err := c.Logout(ctx, e)
		if err != nil || r == nil || *r != want {
			t.Errorf("logout %d: %+v, %v; want %+v", i+1, r, err, want)
		}
	}
	if _, err := creds.Load(ctx, c.Store, CredentialRef(e)); err == nil {
		t.Error("the login is still stored")
	}
}
