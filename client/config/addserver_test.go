package config

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// ParseAdd takes NAME and a URL, or NAME and a command (after -- or in
// --stdio), with --env, --header, --bearer-env and --protocol; anything
// else is a usage error that says what was wrong.
func TestParseAdd(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args, env []string
		a         AdHoc
		want      *Server
		err       string
	}{
		{name: "url", args: []string{"web", "https://x.example/mcp"}, a: AdHoc{Headers: []string{"x-key: ${KEY}"}, BearerEnv: "TOK", Protocol: "2025-06-18"},
			want: &Server{URL: "https://x.example/mcp", Headers: map[string]string{"X-Key": "${KEY}"}, BearerTokenEnv: "TOK", Protocol: "2025-06-18"}},
		{name: "argv", args: []string{"s"}, env: []string{"A=1", "B=x=y"}, a: AdHoc{Argv: []string{"npx", "-y", "srv"}},
			want: &Server{Command: "npx", Args: []string{"-y", "srv"}, Env: map[string]string{"A": "1", "B": "x=y"}}},
		{name: "stdio", args: []string{"s"}, a: AdHoc{Stdio: "'my srv' --flag"}, want: &Server{Command: "my srv", Args: []string{"--flag"}}},
		{name: "no name", err: "missing NAME"},
		{name: "no server", args: []string{"s"}, err: "missing the server's URL or command"},
		{name: "not a url", args: []string{"s", "ftp://x"}, err: `"ftp://x" is not an http(s) URL`},
		{name: "three", args: []string{"s", "https://x.example", "more"}, err: `unexpected argument "more"`},
		{name: "url and command", args: []string{"s", "https://x.example"}, a: AdHoc{Argv: []string{"srv"}}, err: "give either a URL or a command, not both"},
		{name: "unsplittable", args: []string{"s"}, a: AdHoc{Stdio: "'open"}, err: `--stdio: cannot split "'open"`},
		{name: "empty stdio", args: []string{"s"}, a: AdHoc{Stdio: " "}, err: `--stdio: cannot split " "`},
		// The value is never quoted: it may be a secret.
		{name: "bad env", args: []string{"s"}, env: []string{"=secret"}, a: AdHoc{Argv: []string{"srv"}}, err: `bad --env "": expected KEY=VALUE`},
		{name: "env no value", args: []string{"s"}, env: []string{"TOKEN"}, a: AdHoc{Argv: []string{"srv"}}, err: `bad --env "TOKEN": expected KEY=VALUE`},
		{name: "bad header", args: []string{"s", "https://x.example"}, a: AdHoc{Headers: []string{"Authorization Bearer t"}}, err: `invalid --header starting "Authorization": expected 'Name: value'`},
	} {
		name, s, err := ParseAdd(tc.args, tc.env, tc.a)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err || fail.CodeOf(err) != fail.Usage {
				t.Errorf("%s: error %v (code %v), want usage error %q", tc.name, err, fail.CodeOf(err), tc.err)
			}
		case err != nil || name != tc.args[0] || !reflect.DeepEqual(s, tc.want):
			t.Errorf("%s: %q %+v %v, want %+v", tc.name, name, s, err, tc.want)
		}
	}
}

// Add writes the server, Remove deletes it; removing one the file does
// not have is a config error naming the file, and a project file no one
// trusted says so in its note.
func TestAddRemove(t *testing.T) {
	dir := t.TempDir()
	dirs := Dirs{Config: filepath.Join(dir, "config"), State: filepath.Join(dir, "state"), Home: dir}
	ctx := context.Background()
	user := EditTarget(dirs, dir, false, time.Now())
	f, err := user.Add(ctx, "web", &Server{URL: "https://x.example/mcp"})
	if err != nil || f.Names[0] != "web" || f.UntrustedNote() != "" {
		t.Fatalf("Add: %+v %v", f, err)
	}
	if _, err := user.Remove(ctx, "web"); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	_, err = user.Remove(ctx, "web")
	if want := user.Path + ` has no server "web"`; err == nil || err.Error() != want || fail.CodeOf(err) != fail.Config {
		t.Errorf("Remove of an absent server: %v, want config error %q", err, want)
	}
	proj := EditTarget(dirs, dir, true, time.Now())
	if err := os.WriteFile(proj.Path, []byte(`{"mcpServers": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err = proj.Add(ctx, "s", &Server{Command: "srv"})
	if want := proj.Path + " is not trusted; its servers are ignored until 'mcpc trust'"; err != nil || f.UntrustedNote() != want {
		t.Errorf("untrusted project file: %q %v, want %q", f.UntrustedNote(), err, want)
	}
}
