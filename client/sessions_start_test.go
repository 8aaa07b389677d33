package client

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/sessions"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// TestHolderLineArgs: a keepAlive holder's command line repeats every
// config file the invocation read, in its order, and only the flags that
// were given; --connect-timeout given as 0 is passed on (it beats the
// entry's "timeout").
func TestHolderLineArgs(t *testing.T) {
	l := HolderLine{Program: "mcpc", ConfigFiles: []string{"flag.json", "env1.json", "env2.json"},
		Protocol: "2025-06-18", ConnectTimeoutSet: true, ProbeTimeout: 3 * time.Second, MaxMessage: 4096,
		Headers: []string{"Authorization: Bearer x", "X-Team: a"}, BearerEnv: "TOK"}
	want := []string{"mcpc", "session", "start", "--idle", "15m0s", "--config", "flag.json", "--config", "env1.json",
		"--config", "env2.json", "--protocol", "2025-06-18", "--connect-timeout", "0s", "--probe-timeout", "3s",
		"--max-message", "4096", "--header", "Authorization: Bearer x", "--header", "X-Team: a", "--bearer-env", "TOK", "srv"}
	if got := l.Args("srv", DefaultSessionIdle); !slices.Equal(got, want) {
		t.Fatalf("Args =\n%q\nwant\n%q", got, want)
	}
	bare := HolderLine{Program: "mcpc", ConnectTimeout: time.Minute}
	if got, want := bare.Args("srv", 0), []string{"mcpc", "session", "start", "--idle", "0s", "srv"}; !slices.Equal(got, want) {
		t.Fatalf("Args = %q, want %q: a flag not given is left out", got, want)
	}
}

// TestHolderArgs: only the holder's own command line is read from in; a
// holder started by hand, with no spec, is refused as a usage error.
func TestHolderArgs(t *testing.T) {
	args, out, err := sessions.HolderArgs([]string{"mcpc", "list"}, strings.NewReader("unread"), new(bytes.Buffer))
	if err != nil || out != nil || !slices.Equal(args, []string{"mcpc", "list"}) {
		t.Fatalf("HolderArgs(list) = %q, %v, %v; want the args as they are and no writer", args, out, err)
	}
	spec := `{"args":["mcpc","session","start","srv"],"shell":{"pid":7,"start":"s"}}`
	args, out, err = sessions.HolderArgs([]string{"mcpc", sessions.HolderCommand}, strings.NewReader(spec), new(bytes.Buffer))
	ho, _ := out.(*sessions.HolderOut)
	if err != nil || ho == nil || ho.Shell.PID != 7 || !slices.Equal(args, []string{"mcpc", "session", "start", "srv"}) {
		t.Fatalf("HolderArgs(holder) = %q, %#v, %v", args, out, err)
	}
	_, out, err = sessions.HolderArgs([]string{"mcpc", sessions.HolderCommand}, strings.NewReader(""), new(bytes.Buffer))
	if want := "__holder is mcpc's own: it is started by mcpc session start"; out != nil || fail.CodeOf(err) != fail.Usage || err.Error() != want {
		t.Fatalf("HolderArgs(no spec) = %v, %v; want a usage error %q", out, err, want)
	}
}

// TestSessionTarget: a configured server's session is named after it; a
// --stdio server's needs --name, which may not be a configured server's
// and must be a name one can type.
func TestSessionTarget(t *testing.T) {
	file := &config.File{Path: "mcp.json", Source: config.SourceUser}
	cfg := &config.Config{Servers: map[string]*config.Entry{"srv": {Name: "srv", Server: &config.Server{Command: "s"}, File: file}}}
	var dialed []conn.ConnectOptions
	c := testConnector(t, cfg, &dialed)
	if e, name, err := c.sessionTarget("srv", ""); err != nil || name != "srv" || e.Name != "srv" {
		t.Fatalf("sessionTarget(srv) = %v, %q, %v", e, name, err)
	}
	for _, tc := range []struct{ server, name, stdio, want string }{
		{"srv", "other", "", "--name applies to a --stdio server only"},
		{"", "", "cmd arg", "a --stdio server's session needs --name NAME"},
		{"", "srv", "cmd arg", `"srv" is a configured server's name`},
		{"", "a\x1bb", "cmd arg", `invalid session name "a\x1bb"`},
		{"", strings.Repeat("n", 201), "cmd arg", `invalid session name "` + strings.Repeat("n", 201) + `"`},
	} {
		c.AdHoc = config.AdHoc{Stdio: tc.stdio}
		_, _, err := c.sessionTarget(tc.server, tc.name)
		if fail.CodeOf(err) != fail.Usage || err == nil || err.Error() != tc.want {
			t.Errorf("sessionTarget(%q, %q) = %v, want a usage error %q", tc.server, tc.name, err, tc.want)
		}
	}
	c.AdHoc = config.AdHoc{Stdio: "cmd arg"}
	if e, name, err := c.sessionTarget("", "mine"); err != nil || name != "mine" || e.Server.Command != "cmd" {
		t.Fatalf("sessionTarget(--stdio, mine) = %v, %q, %v", e, name, err)
	}
}

// TestHoldSessionReportsEarlyFailure: a holder that fails before it
// serves tells its starter, which waits for a report, with the code and
// hint of the failure as failure words it.
func TestHoldSessionReportsEarlyFailure(t *testing.T) {
	var dialed []conn.ConnectOptions
	c := testConnector(t, &config.Config{Servers: map[string]*config.Entry{}}, &dialed)
	c.AdHoc = config.AdHoc{Stdio: "cmd"}
	var to bytes.Buffer
	err := c.HoldSession(context.Background(), StartOptions{Name: "s", Shell: true}, &to, sessions.HoldOptions{}, fail.As)
	if want := "the holder was not told which shell it ends with"; err == nil || err.Error() != want {
		t.Fatalf("HoldSession = %v, want %q", err, want)
	}
	if got, want := to.String(), `{"error":{"code":"internal","message":"the holder was not told which shell it ends with"}}`; got != want {
		t.Fatalf("report = %s, want %s", got, want)
	}
}
