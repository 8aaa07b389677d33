package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// setup makes a home with a user config and a repository holding a project
// file, and returns the options to load from a subdirectory of it.
func setup(t *testing.T) (LoadOptions, string) {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	env := map[string]string{"HOME": home}
	dirs := DirsFrom(func(k string) string { return env[k] })
	write(t, dirs.UserConfigFile(), `{"mcpServers": {
		"a": {"command": "user-a"},
		"b": {"command": "user-b"}}}`)
	repo := filepath.Join(home, "src", "repo")
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref: main\n")
	proj := filepath.Join(repo, ".mcp.json")
	write(t, proj, `{"mcpServers": {
		"b": {"command": "project-b"},
		"c": {"url": "https://c.example/mcp"}}}`)
	cwd := filepath.Join(repo, "sub", "dir")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	return LoadOptions{Dirs: dirs, Cwd: cwd}, proj
}

func commands(c *Config) map[string]string {
	out := map[string]string{}
	for name, e := range c.Servers {
		out[name] = e.Server.Command + e.Server.URL
	}
	return out
}

func TestPrecedenceAndTrust(t *testing.T) {
	opts, proj := setup(t)

	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := commands(c); len(got) != 2 || got["a"] != "user-a" || got["b"] != "user-b" {
		t.Fatalf("untrusted project: servers = %v, want only the user's", got)
	}
	if c.Project == nil || c.Project.Path != proj || c.ProjectTrust != Untrusted {
		t.Fatalf("project = %+v, trust %v", c.Project, c.ProjectTrust)
	}
	_, err = c.Lookup("c")
	if err == nil || fail.CodeOf(err) != fail.Untrusted || !strings.Contains(err.Error(), "untrusted project file") {
		t.Fatalf("Lookup(c) = %v, want untrusted config error", err)
	}
	if note := c.UntrustedNote("b"); !strings.Contains(note, `ignoring server "b"`) {
		t.Fatalf("UntrustedNote(b) = %q", note)
	}

	store := TrustStore{Dir: opts.Dirs.State}
	if _, err := store.Set(context.Background(), proj, c.Project.Hash, time.Now()); err != nil {
		t.Fatal(err)
	}
	c, err = Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "user-a", "b": "project-b", "c": "https://c.example/mcp"}
	if got := commands(c); len(got) != 3 || got["a"] != want["a"] || got["b"] != want["b"] || got["c"] != want["c"] {
		t.Fatalf("trusted project: servers = %v, want %v", got, want)
	}

	// --config beats the project file, as a whole server.
	extra := filepath.Join(t.TempDir(), "extra.json")
	write(t, extra, `{"mcpServers": {"b": {"url": "https://b.example/mcp"}}}`)
	opts.ConfigFiles = []string{extra}
	c, err = Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if b := c.Servers["b"].Server; b.Command != "" || b.URL != "https://b.example/mcp" {
		t.Fatalf("--config b = %+v, want the URL server only", b)
	}

	// A changed file is untrusted again.
	write(t, proj, `{"mcpServers": {"c": {"command": "evil"}}}`)
	c, err = Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if c.ProjectTrust != Changed {
		t.Fatalf("trust after change = %v, want changed", c.ProjectTrust)
	}
	if _, err := c.Lookup("c"); err == nil || !strings.Contains(err.Error(), "changed since it was trusted") {
		t.Fatalf("Lookup(c) after change = %v", err)
	}
	had, err := store.Set(context.Background(), proj, "", time.Now())
	if err != nil || !had {
		t.Fatalf("untrust = %v, %v", had, err)
	}
}

func TestProjectFileSearchStops(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	// A .mcp.json above the repository root must not apply inside it.
	write(t, filepath.Join(home, "src", ".mcp.json"), `{"mcpServers": {}}`)
	repo := filepath.Join(home, "src", "repo")
	write(t, filepath.Join(repo, ".git", "HEAD"), "x")
	if got := FindProjectFile(filepath.Join(repo, "a"), home); got != "" {
		t.Fatalf("found %q above the repository root", got)
	}
	// Outside a repository the search stops at $HOME.
	write(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {}}`)
	if got := FindProjectFile(filepath.Join(home, "x", "y"), home); got != "" {
		t.Fatalf("found %q above $HOME", got)
	}
	write(t, filepath.Join(home, "x", ".mcp.json"), `{"mcpServers": {}}`)
	if got, want := FindProjectFile(filepath.Join(home, "x", "y"), home), filepath.Join(home, "x", ".mcp.json"); got != want {
		t.Fatalf("FindProjectFile = %q, want %q", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, data, want string
	}{
		{"syntax", "user", "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\",}\n}}", "f.json:2:24: invalid JSON: invalid character '}' looking for beginning of object key string"},
		{"empty", "user", "", "f.json:1:1: invalid JSON: "},
		{"trailing", "user", `{"mcpServers": {}} x`, "f.json:1:20: invalid JSON: unexpected data after the top-level value"},
		{"unknown", "user", `{"mcpServers": {"a": {"command": "x", "bogus": 1}}}`, `f.json:1:39: unknown field "bogus" in server "a"`},
		{"unknown escaped", "user", "{\"mcpServers\": {\"a\": {\"command\": \"x\",\n   \"ba\\\"d\\\\\": 1}}}", `f.json:2:4: unknown field "ba\"d\\" in server "a"`},
		{"auth unknown", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "oauth", "clientid": "x"}}}}`, `unknown field "clientid" in server "a" "auth" (did you mean "clientId"?)`},
		{"idp unknown", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "enterprise", "idp": {"tokenEndpont": "x"}}}}}`, `f.json:1:90: unknown field "tokenEndpont" in server "a" "auth" "idp" (did you mean "tokenEndpoint"?)`},
		{"idp not object", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "enterprise", "idp": "https://idp.example"}}}}`, `f.json:1:89: server "a" "auth" "idp" must be an object`},
		{"no servers", "user", `{}`, `no "mcpServers" object`},
		{"bad name", "user", `{"mcpServers": {"-x": {"command": "x"}}}`, `invalid server name "-x"`},
		{"dup", "user", `{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}`, `server "a" is defined twice`},
		{"env type", "user", `{"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}`, `field "env": must be a string, not number`},
		{"timeout", "user", `{"mcpServers": {"a": {"command": "x", "timeout": "soon"}}}`, `invalid duration "soon"`},
		{"tool globs type", "user", `{"mcpServers": {"a": {"command": "x", "includeTools": "get_*"}}}`, `f.json:1:55: server "a": field "includeTools": must be an array, not string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := SourceUser
			if tc.src == "project" {
				src = SourceProject
			}
			f := ParseFile("f.json", src, []byte(tc.data))
			if f.Err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if fail.CodeOf(f.Err) != fail.Config || !strings.Contains(f.Err.Error(), tc.want) {
				t.Fatalf("error = %q, want it to contain %q", f.Err, tc.want)
			}
		})
	}
	// The same literal header is allowed in the user's own file.
	if f := ParseFile("f.json", SourceUser, []byte(`{"mcpServers": {"a": {"url": "https://x.example", "headers": {"Authorization": "Bearer abc"}}}}`)); f.Err != nil {
		t.Fatal(f.Err)
	}
}

// TestServerUnusable: an entry mcpc cannot use makes that one server
// unusable, with its reason located in the file; the file and its other
// servers stay usable.
func TestServerUnusable(t *testing.T) {
	for _, tc := range []struct {
		name, src, data, want string
	}{
		{"var in url", "user", `{"mcpServers": {"a": {"url": "https://${HOST}/mcp"}}}`, `not in "url"`},
		{"bad var", "user", `{"mcpServers": {"a": {"command": "x", "env": {"K": "${1X}"}}}}`, `${1X} is not a valid ${VAR} reference`},
		{"literal token in project", "project", `{"mcpServers": {"a": {"url": "https://x.example", "headers": {"Authorization": "Bearer abc"}}}}`, `holds a literal secret`},
		{"stdio fields on http", "user", `{"mcpServers": {"a": {"url": "https://x.example", "env": {"K": "v"}}}}`, `apply to stdio servers only`},
		{"protocol", "user", `{"mcpServers": {"a": {"command": "x", "protocol": "2024-11-05"}}}`, `unknown protocol "2024-11-05"`},
		{"client credentials", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "client_credentials", "clientId": "c", "issuer": "https://as.example"}}}}`, `needs exactly one of "clientSecretEnv" and "clientAssertionKeyFile"`},
		{"workload two sources", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "workload", "issuer": "https://as.example", "assertionEnv": "T", "assertionFile": "t.jwt"}}}}`, `server "a": auth type "workload" needs exactly one of "assertionEnv", "assertionFile" and "assertionFrom"`},
		{"workload no source", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "workload", "issuer": "https://as.example"}}}}`, `auth type "workload" needs exactly one of "assertionEnv", "assertionFile" and "assertionFrom"`},
		{"workload no issuer", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "workload", "assertionEnv": "T"}}}}`, `auth type "workload" needs "issuer": the authorization server that trusts the workload's tokens`},
		{"workload unknown from", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "workload", "issuer": "https://as.example", "assertionFrom": "gitlab"}}}}`, `unknown "assertionFrom" "gitlab" (use "github-actions", or "assertionEnv"/"assertionFile" for other platforms)`},
		{"workload audience", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "workload", "issuer": "https://as.example", "assertionEnv": "T", "audience": "x"}}}}`, `"audience" applies to "assertionFrom": "github-actions" only`},
		{"workload secret", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "workload", "issuer": "https://as.example", "assertionEnv": "T", "clientSecretEnv": "S"}}}}`, `auth type "workload" does not use "clientSecretEnv"`},
		{"workload bad env", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "workload", "issuer": "https://as.example", "assertionEnv": "1T"}}}}`, `assertionEnv "1T" is not an environment variable name`},
		{"enterprise no idp", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "enterprise", "issuer": "https://as.example", "clientId": "c", "clientSecretEnv": "S"}}}}`, `auth type "enterprise" needs "clientId", "issuer" and "idp" with its "issuer" and "clientId"`},
		{"enterprise two id tokens", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "enterprise", "issuer": "https://as.example", "clientId": "c", "clientSecretEnv": "S", "idp": {"issuer": "https://idp.example", "clientId": "i"}, "idTokenEnv": "T", "idTokenFile": "t"}}}}`, `auth type "enterprise" takes at most one of "idTokenEnv" and "idTokenFile"`},
		{"enterprise no client auth", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "enterprise", "issuer": "https://as.example", "clientId": "c", "idp": {"issuer": "https://idp.example", "clientId": "i"}}}}}`, `auth type "enterprise" needs exactly one of "clientSecretEnv" and "clientAssertionKeyFile"`},
		{"enterprise idp env", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "enterprise", "issuer": "https://as.example", "clientId": "c", "clientSecretEnv": "S", "idp": {"issuer": "https://idp.example", "clientId": "i", "clientSecretEnv": "a-b"}}}}}`, `idp.clientSecretEnv "a-b" is not an environment variable name`},
		{"assertion on oauth", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "oauth", "assertionEnv": "T"}}}}`, `auth type "oauth" does not use "assertionEnv"`},
		{"unknown auth type", "user", `{"mcpServers": {"a": {"url": "https://x.example", "auth": {"type": "wif"}}}}`, `unknown auth type "wif" (use "oauth", "client_credentials", "workload" or "enterprise")`},
		{"websocket", "user", `{"mcpServers": {"a": {"type": "websocket", "url": "https://x.example"}}}`, `f.json:1:23: server "a": type "websocket" is not a transport mcpc speaks (use "stdio", "http", "streamable-http" or "sse")`},
		{"stdio type with url", "user", `{"mcpServers": {"a": {"type": "stdio", "url": "https://x.example"}}}`, `f.json:1:23: server "a": type "stdio" needs "command", not "url"`},
		{"sse type with command", "user", `{"mcpServers": {"a": {"command": "x", "type": "sse"}}}`, `f.json:1:39: server "a": type "sse" needs "url", not "command"`},
		{"http type with command", "user", `{"mcpServers": {"a": {"type": "streamable-http", "command": "x"}}}`, `type "streamable-http" needs "url", not "command"`},
		{"envFile on http", "user", `{"mcpServers": {"a": {"url": "https://x.example", "envFile": ".env"}}}`, `f.json:1:51: server "a": "envFile" applies to stdio servers only`},
		{"var in envFile", "user", `{"mcpServers": {"a": {"command": "x", "envFile": "${HOME}/.env"}}}`, `not in "envFile"`},
		{"bad tool glob", "user", `{"mcpServers": {"a": {"command": "x", "excludeTools": ["ok_*", "del[ete"]}}}`, `f.json:1:39: server "a": excludeTools[1] "del[ete": not a glob: use *, ? and [a-z] classes, \ to quote one of them`},
		{"empty tool glob", "user", `{"mcpServers": {"a": {"command": "x", "includeTools": [""]}}}`, `f.json:1:39: server "a": includeTools[0] "": an empty pattern matches no tool`},
		{"helper on stdio", "user", `{"mcpServers": {"a": {"command": "x", "headersCommand": ["h"]}}}`, `server "a": "headersCommand", "bearerTokenCommand" and "headersTtl" apply to HTTP servers only`},
		{"two helpers", "user", `{"mcpServers": {"a": {"url": "https://x.example", "headersCommand": ["h"], "bearerTokenCommand": ["t"]}}}`, `server "a": give "headersCommand" or "bearerTokenCommand", not both`},
		{"helper and env", "user", `{"mcpServers": {"a": {"url": "https://x.example", "bearerTokenCommand": ["t"], "bearerTokenEnv": "T"}}}`, `f.json:1:51: server "a": "bearerTokenCommand" and "bearerTokenEnv" or "auth" are two ways to authenticate: give one`},
		{"helper and auth", "user", `{"mcpServers": {"a": {"url": "https://x.example", "headersCommand": ["t"], "auth": {"type": "oauth"}}}}`, `"headersCommand" and "bearerTokenEnv" or "auth" are two ways to authenticate: give one`},
		{"helper empty", "user", `{"mcpServers": {"a": {"url": "https://x.example", "headersCommand": []}}}`, `server "a": "headersCommand" needs a command: ["program", "arg", …]`},
		{"helper empty program", "user", `{"mcpServers": {"a": {"url": "https://x.example", "bearerTokenCommand": ["", "x"]}}}`, `"bearerTokenCommand" needs a command`},
		{"helper var", "user", `{"mcpServers": {"a": {"url": "https://x.example", "bearerTokenCommand": ["op", "read", "${VAULT}"]}}}`, `${VAR} is only expanded in "env" and "headers" values, not in "bearerTokenCommand": the command reads its environment itself`},
		{"helper nul", "user", `{"mcpServers": {"a": {"url": "https://x.example", "bearerTokenCommand": ["op\u0000x"]}}}`, `"bearerTokenCommand" holds a NUL byte`},
		{"helper long", "user", `{"mcpServers": {"a": {"url": "https://x.example", "bearerTokenCommand": ["x"` + strings.Repeat(`, "a"`, 256) + `]}}}`, `"bearerTokenCommand" has 257 words; at most 256 are taken`},
		{"ttl alone", "user", `{"mcpServers": {"a": {"url": "https://x.example", "headersTtl": "1h"}}}`, `f.json:1:51: server "a": "headersTtl" is how long a "headersCommand" or "bearerTokenCommand" is trusted: give one`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := SourceUser
			if tc.src == "project" {
				src = SourceProject
			}
			data := strings.TrimSuffix(tc.data, "}}") + `, "ok": {"command": "fine"}}}`
			f := ParseFile("f.json", src, []byte(data))
			if f.Err != nil {
				t.Fatalf("file error %v, want only server \"a\" unusable", f.Err)
			}
			if err := f.Servers["ok"].Unusable(); err != nil {
				t.Fatalf("the good server is unusable: %v", err)
			}
			err := f.Servers["a"].Unusable()
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if fail.CodeOf(err) != fail.Config || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	f := ParseFile("f.json", SourceProject, []byte(`{"$schema": "x", "mcpServers": {
		"s": {"type": "stdio", "command": "node", "args": ["srv.js"], "env": {"K": "${K:-d}"}, "timeout": 90000, "description": "ignored"},
		"h": {"type": "http", "url": "http://127.0.0.1:8080/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}, "protocol": "2026-07-28", "timeout": "2m"}}}`))
	if f.Err != nil {
		t.Fatal(f.Err)
	}
	if got := strings.Join(f.Names, ","); got != "s,h" {
		t.Fatalf("names in file order = %q", got)
	}
	if d := time.Duration(f.Servers["s"].Timeout); d != 90*time.Second {
		t.Fatalf("timeout 90000 (milliseconds) = %v", d)
	}
	if d := time.Duration(f.Servers["h"].Timeout); d != 2*time.Minute {
		t.Fatalf(`timeout "2m" = %v`, d)
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{"A": "1", "EMPTY": ""}
	get := func(k string) string { return env[k] }
	for in, want := range map[string]string{
		"x${A}y":          "x1y",
		"${MISSING:-def}": "def",
		"${EMPTY:-def}":   "def",
		"$A and $$":       "$A and $$",
		"no vars":         "no vars",
	} {
		got, err := Expand(in, get)
		if err != nil || got != want {
			t.Errorf("Expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := Expand("${MISSING}", get); err == nil || err.Error() != "environment variable MISSING is not set" {
		t.Errorf("Expand(${MISSING}) error = %v", err)
	}
}

func TestCheckURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://x.example/mcp":     "",
		"http://127.0.0.1:1/mcp":    "",
		"http://[::1]:1/mcp":        "",
		"http://localhost/mcp":      "",
		"http://x.example/mcp":      "plain http on a non-loopback host",
		"https://u:p@x.example/mcp": `"https://REDACTED@x.example/mcp" contains credentials`,
		"ftp://x.example/":          `scheme "ftp" is not supported`,
		"https:///mcp":              "has no host",
	} {
		err := CheckURL(in)
		switch {
		case want == "" && err != nil:
			t.Errorf("CheckURL(%q) = %v, want ok", in, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("CheckURL(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestLookupExplains(t *testing.T) {
	opts, proj := setup(t)
	// No servers anywhere: the hint names the user's file.
	empty := &Config{UserFile: opts.Dirs.UserConfigFile(), Servers: map[string]*Entry{}}
	_, err := empty.Lookup("x")
	want := "add it to " + opts.Dirs.UserConfigFile() + " or a project .mcp.json, or pass an https:// URL or --stdio 'command args'"
	var e *fail.Error
	if !errors.As(err, &e) || e.Msg != `unknown server "x"` || e.Hint != want {
		t.Fatalf("Lookup on empty config = %#v, want hint %q", err, want)
	}

	// A project file that does not parse never fails the load; it is
	// named as unusable, and a name found nowhere else gets its reason.
	write(t, proj, `{"mcpServers": {"c": {"command": "x",}}}`)
	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	reason := proj + ":1:38: invalid JSON: invalid character '}' looking for beginning of object key string"
	if got := c.Unusable(); len(got) != 1 || got[0] != (UnusableFile{File: proj, Message: reason}) {
		t.Fatalf("Unusable() = %#v", got)
	}
	_, err = c.Lookup("c")
	if !errors.As(err, &e) || e.Code != fail.Config || e.Msg != `server "c": cannot use project file `+reason ||
		e.Hint != "fix the file, then run: mcpc trust "+proj {
		t.Fatalf("Lookup(c) = %#v", err)
	}
	// The user's own servers still resolve.
	if _, err := c.Lookup("a"); err != nil {
		t.Fatalf("Lookup(a) = %v", err)
	}

	// Nor does one that cannot be read: the reason follows the path once.
	if err := os.WriteFile(proj, make([]byte, MaxConfigFile+1), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err = Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Unusable(); len(got) != 1 || got[0].Message != proj+": larger than the 4 MiB limit" {
		t.Fatalf("Unusable() for an oversized file = %#v", got)
	}

	// Nor one trusted as it is (trusted before a stricter mcpc).
	broken := `{"mcpServers": {"c": {"command": "x", "new": 1}}}`
	write(t, proj, broken)
	if _, err := (TrustStore{Dir: opts.Dirs.State}).Set(context.Background(), proj, hashBytes([]byte(broken)), time.Now()); err != nil {
		t.Fatal(err)
	}
	c, err = Load(opts)
	if err != nil {
		t.Fatalf("Load with a trusted but unusable project file = %v", err)
	}
	if got := c.Unusable(); len(got) != 1 || got[0].Message != proj+`:1:39: unknown field "new" in server "c"` {
		t.Fatalf("Unusable() for a trusted file = %#v", got)
	}
}

func TestCorruptTrustStore(t *testing.T) {
	opts, _ := setup(t)
	write(t, filepath.Join(opts.Dirs.State, "trust.json"), "{not json")
	_, err := Load(opts)
	e := fail.As(err)
	if e == nil || e.Code != fail.Config || !strings.HasPrefix(e.Msg, "trust records in "+filepath.Join(opts.Dirs.State, "trust.json")+" are corrupt") ||
		e.Hint != "remove "+filepath.Join(opts.Dirs.State, "trust.json")+" and trust your project files again" {
		t.Fatalf("Load with corrupt trust store = %#v", err)
	}
}

func TestProjectFileSearchSkipsSharedDirs(t *testing.T) {
	root := t.TempDir()
	shared := filepath.Join(root, "shared")
	write(t, filepath.Join(shared, ".mcp.json"), `{"mcpServers": {}}`)
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	cwd := filepath.Join(shared, "work")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	// A world-writable directory (like /tmp) ends the search unread.
	if got := FindProjectFile(cwd, ""); got != "" {
		t.Fatalf("found %q in a world-writable directory", got)
	}
	if err := os.Chmod(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := FindProjectFile(cwd, ""); got != filepath.Join(shared, ".mcp.json") {
		t.Fatalf("FindProjectFile = %q once the directory is private", got)
	}
}

func TestToolFilteredBy(t *testing.T) {
	s := &Server{IncludeTools: []string{"get_*", "list"}, ExcludeTools: []string{"get_secret*"}}
	for name, want := range map[string]string{
		"get_issue":      "",
		"list":           "",
		"get_secret_key": `excludeTools "get_secret*"`, // exclude wins
		"delete":         "includeTools (no pattern matches)",
		"lists":          "includeTools (no pattern matches)",
		"get_/x":         "includeTools (no pattern matches)", // * stops at /, as path.Match
	} {
		if got := s.ToolFilteredBy(name); got != want {
			t.Errorf("ToolFilteredBy(%q) = %q, want %q", name, got, want)
		}
	}
	only := &Server{ExcludeTools: []string{"rm"}}
	if only.ToolFilteredBy("ls") != "" || only.ToolFilteredBy("rm") != `excludeTools "rm"` || !only.HasToolFilter() {
		t.Error("an exclude list alone hides only what it matches")
	}
	var none *Server
	if none.ToolFilteredBy("x") != "" || (&Server{}).HasToolFilter() {
		t.Error("no filter hides nothing")
	}
}
