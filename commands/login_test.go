package commands

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/credentials"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/creds"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// TestLoginConnectOptions: mcpc login connects with the options every
// command builds from the flags (--max-message, --idle-timeout and the
// rest), overriding only the connect bound, the OAuth handler, and what a
// connection that makes no request past the handshake does without.
func TestLoginConnectOptions(t *testing.T) {
	const srv = "https://mcp.example.com/mcp"
	flags := []string{"--max-message", "1KiB", "--idle-timeout", "7s", "--probe-timeout", "3s",
		"--protocol", "2025-11-25", "--connect-timeout", "9s", "--no-cache"}
	unreachable := fail.New(fail.Connection, "", "cannot reach server at %s", srv)

	call := &fakeServer{connectErr: unreachable}
	if code, _, stderr := runFake(t, call, "", append(append([]string{"call"}, flags...), srv, "echo")...); code != 5 {
		t.Fatalf("call: exit %d, stderr %q", code, stderr)
	}
	login := &fakeServer{connectErr: unreachable}
	code, stdout, stderr := runFake(t, login, "", append(append([]string{"login"}, flags...), srv)...)
	if code != 5 || stdout != "" || stderr != "mcpc: error: cannot reach server at "+srv+"\n" {
		t.Fatalf("login: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if len(call.connects) != 1 || len(login.connects) != 1 {
		t.Fatalf("connects: call %d, login %d; want 1 each", len(call.connects), len(login.connects))
	}
	c, l := call.connects[0], login.connects[0]
	if l.MaxMessage != 1024 || l.IdleTimeout != 7*time.Second || l.ProbeTimeout != 3*time.Second || l.Protocol != "2025-11-25" || !l.NoCache {
		t.Errorf("login: MaxMessage %d, IdleTimeout %v, ProbeTimeout %v, Protocol %q, NoCache %v; want the flags' 1024, 7s, 3s, 2025-11-25, true",
			l.MaxMessage, l.IdleTimeout, l.ProbeTimeout, l.Protocol, l.NoCache)
	}
	if l.MaxMessage != c.MaxMessage || l.IdleTimeout != c.IdleTimeout || l.ProbeTimeout != c.ProbeTimeout ||
		l.Protocol != c.Protocol || l.Version != c.Version || l.NoCache != c.NoCache ||
		(l.Verbose == nil) != (c.Verbose == nil) || (l.Progress == nil) != (c.Progress == nil) {
		t.Errorf("login and call build different options from the same flags:\nlogin %+v\ncall  %+v", l, c)
	}
	// What login overrides: its bound is the login's (--timeout, default
	// 5m), not --connect-timeout; the token comes from the login in
	// progress; no memo and no input.
	if c.ConnectTimeout != 9*time.Second || l.ConnectTimeout <= 9*time.Second || l.ConnectTimeout > credentials.DefaultLoginTimeout {
		t.Errorf("ConnectTimeout: call %v, login %v; want 9s and the login's bound", c.ConnectTimeout, l.ConnectTimeout)
	}
	if l.OAuthHandler == nil || l.Memo != nil || l.Input != nil {
		t.Errorf("login: OAuthHandler %v, Memo %v, Input %v; want a handler, no memo, no input", l.OAuthHandler, l.Memo, l.Input)
	}
	if c.Memo == nil {
		t.Error("call: no memo")
	}
}

// Without --idle-timeout, login takes the default idle bound as every
// command does.
func TestLoginIdleDefault(t *testing.T) {
	f := &fakeServer{connectErr: fail.New(fail.Connection, "", "unreachable")}
	if code, _, stderr := runFake(t, f, "", "login", "https://mcp.example.com/mcp"); code != 5 || len(f.connects) != 1 {
		t.Fatalf("exit %d, %d connects, stderr %q", code, len(f.connects), stderr)
	}
	if o := f.connects[0]; o.IdleTimeout != 5*time.Minute || o.MaxMessage != 0 {
		t.Errorf("IdleTimeout %v, MaxMessage %d; want the default 5m and 0 (the entry's, else the client's default)", o.IdleTimeout, o.MaxMessage)
	}
}

// runLogout on its loginIO: a server without a stored login is a note
// and loggedOut with wasStored false; a stdio server is refused before
// the keyring is asked.
func TestRunLogout(t *testing.T) {
	entries := map[string]*config.Entry{
		"web":   {Name: "web", Server: &config.Server{URL: "https://mcp.example.com/mcp"}},
		"local": {Name: "local", Server: &config.Server{Command: "server"}},
	}
	for _, c := range []struct {
		server, stdout, stderr, err string
	}{
		{server: "web", stdout: `{"server":"web","loggedOut":true,"wasStored":false}`,
			stderr: "mcpc: note: there was no stored login for web\n"},
		{server: "local", err: `mcpc logout applies to HTTP servers; "local" runs over stdio`},
	} {
		var stdout, stderr strings.Builder
		lio := loginIO{
			runIO: runIO{stderr: &stderr,
				print: func(_ format.Kind, v any) error {
					b, err := json.Marshal(v)
					stdout.Write(b)
					return err
				},
				resolve: func(server string) (*config.Entry, error) { return entries[server], nil },
			},
			creds: credentials.Credentials{Store: creds.NewMemStore(), LockDir: t.TempDir()},
		}
		msg := ""
		if err := runLogout(context.Background(), lio, c.server); err != nil {
			msg = err.Error()
		}
		if msg != c.err || stdout.String() != c.stdout || stderr.String() != c.stderr {
			t.Errorf("%s: err %q, stdout %q, stderr %q", c.server, msg, stdout.String(), stderr.String())
		}
	}
}
