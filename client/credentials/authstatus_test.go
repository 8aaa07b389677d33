package credentials

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/creds"
)

// brokenStore is a keyring that cannot be reached.
type brokenStore struct{ creds.Store }

func (brokenStore) Get(context.Context, string) ([]byte, error) { return nil, errors.New("no D-Bus") }

// Status says how each kind of server authenticates, from the
// environment and the keyring, without contacting anything.
func TestCredentialsStatus(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	env := map[string]string{"TOKEN": "t"}
	store := creds.NewMemStore()
	c := Credentials{Store: store, Getenv: func(k string) string { return env[k] }, Now: func() time.Time { return now }}
	file := &config.File{Path: "/cfg/config.json"}
	const u = "https://mcp.example.com/mcp"
	entry := func(srv *config.Server) *config.Entry { return &config.Entry{Name: "gh", Server: srv, File: file} }
	oauth := entry(&config.Server{URL: u, Auth: &config.Auth{Type: "oauth"}})
	save := func(r *creds.Record) {
		if err := creds.Save(ctx, store, CredentialRef(oauth), r, now); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []struct {
		name string
		e    *config.Entry
		prep func()
		want string
	}{
		{"stdio", entry(&config.Server{Command: "srv"}), nil, ""},
		{"bearer set", entry(&config.Server{URL: u, BearerTokenEnv: "TOKEN"}), nil, "token from TOKEN"},
		{"token helper", entry(&config.Server{URL: u, BearerTokenCommand: []string{"/usr/bin/gcloud", "auth", "print-access-token"}}), nil, "bearerTokenCommand gcloud"},
		{"headers helper", entry(&config.Server{URL: u, HeadersCommand: []string{"./headers.sh"}}), nil, "headersCommand headers.sh"},
		{"bearer unset", entry(&config.Server{URL: u, BearerTokenEnv: "NOPE"}), nil, "NOPE not set"},
		{"client secret unset", entry(&config.Server{URL: u, Auth: &config.Auth{Type: "client_credentials", ClientSecretEnv: "CS"}}), nil, "CS not set"},
		{"client credentials", entry(&config.Server{URL: u, Auth: &config.Auth{Type: "client_credentials", ClientSecretEnv: "TOKEN"}}), nil, "client credentials"},
		{"workload", entry(&config.Server{URL: u, Auth: &config.Auth{Type: "workload", AssertionEnv: "WL"}}), nil, "workload (WL not set)"},
		{"no auth, no login", entry(&config.Server{URL: u}), nil, ""},
		{"needs login", oauth, nil, "needs login"},
		{"fresh", oauth, func() { save(&creds.Record{AccessToken: "a", Expiry: now.Add(5*time.Hour + 20*time.Minute)}) }, "logged in, expires in 5h20m"},
		{"days", oauth, func() { save(&creds.Record{AccessToken: "a", Expiry: now.Add(72 * time.Hour), DPoPKey: "k"}) }, "logged in, expires in 3d, DPoP-bound"},
		{"refreshes", oauth, func() { save(&creds.Record{AccessToken: "a", RefreshToken: "r", Expiry: now.Add(-time.Minute)}) }, "logged in, refreshes on next use"},
		{"expired", oauth, func() { save(&creds.Record{AccessToken: "a", Expiry: now.Add(-time.Minute)}) }, "login expired"},
	} {
		if s.prep != nil {
			s.prep()
		}
		if got := c.Status(ctx, s.e); got != s.want {
			t.Errorf("%s: %q, want %q", s.name, got, s.want)
		}
	}
	c.Store = brokenStore{}
	if got := c.Status(ctx, oauth); got != "keyring unavailable" {
		t.Errorf("broken keyring: %q", got)
	}
}
