package config

import (
	"strings"
	"testing"
)

// TestSecretName: a name is a secret's by a part no other word holds, or
// by a whole word of it (split at _ - . and camelCase).
func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		// Secrets.
		"GITHUB_PERSONAL_ACCESS_TOKEN": true, "API_KEY": true, "OPENAI_APIKEY": true, "apiKey": true, "APIKey": true,
		"DB_PASS": true, "DB_PASSWD": true, "MYSQL_PASSWORD": true, "DB_PWD": true, "dbPwd": true, "GITHUB_PAT": true,
		"githubPat": true, "SSH_KEY": true, "AWS_SECRET_ACCESS_KEY": true, "CLIENT_SECRET": true, "GOOGLE_CREDENTIALS": true,
		"GOOGLE_APPLICATION_CREDENTIAL": true, "Authorization": true, "X-Auth": true, "BASIC_AUTH": true,
		"X-Session-Id": true, "SESSIONID": true, "JIRA_COOKIE": true, "PRIVATE_KEY_PEM": true, "signing.key": true,
		"SSH_PASSPHRASE": true, "REQUEST_SIGNATURE": true, "x-api-key": true,
		// Not secrets.
		"KEYBOARD_LAYOUT": false, "PATH": false, "PWD": false, "OLDPWD": false, "PASSTHROUGH": false,
		"AUTHOR": false, "AUTHOR_NAME": false, "OAUTH_CLIENT_ID": false, "HOME": false, "NODE_ENV": false,
		"SESSION_DIR": false, "PATTERN": false, "MONKEY": false, "DEBUG": false, "X-Team": false, "Content-Type": false,
	} {
		if got := secretName(name); got != want {
			t.Errorf("secretName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestTokenShaped: a value is a credential by its service's prefix, by
// the shape of an AWS key id, a JWT or a PEM key, or by being a long
// random string; words, paths, URLs, versions, UUIDs and digests are not.
func TestTokenShaped(t *testing.T) {
	for v, want := range map[string]bool{
		"ghp_16C7e42F292c6912E7710c838347Ae178B4a":                                                     true,
		"gho_16C7e42F292c6912E7710c838347Ae178B4a":                                                     true,
		"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz":                                    true,
		"glpat-xxxxxxxxxxxxxxxxxxxx":                                                                   true,
		"sk-proj-abcdefghijklmnopqrstuvwxyz012345":                                                     true,
		"sk-ant-api03-abcdefghijklmnop":                                                                true,
		"xoxb-123456789012-1234567890123-abcdefghijklmnop":                                             true,
		"xoxp-1234-5678-91011-abcdefabcdef":                                                            true,
		"AKIAIOSFODNN7EXAMPLE":                                                                         true,
		"npm_abcdefghijklmnopqrstuvwxyz0123456789":                                                     true,
		"Bearer ghp_16C7e42F292c6912E7710c838347Ae178B4a":                                              true,
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U": true,
		"tQ4cP0x+Zz8KJ2mW/9rBq7LhVn3YsEe1dUaFgk6T":                                                     true, // shaped as an AWS secret access key
		"q8Zr3vLx0pT7mWk2Yb5Nc9Hd4Gf1Js6A":                                                             true,
		"-----BEGIN RSA PRIVATE KEY-----\nMIIE...":                                                     true,
		// Not credentials.
		"sk-learn": false, "sk-": false, "ghp_short": false, "production": false, "debug": false,
		"/usr/local/lib/node_modules/@modelcontextprotocol/server-filesystem": false,
		"/home/me/Documents/Projects2024/my-app/config":                       false,
		"https://api.example.com/v1/mcp?team=core":                            false,
		"550e8400-e29b-41d4-a716-446655440000":                                false, // a UUID
		"da39a3ee5e6b4b0d3255bfef95601890afd80709":                            false, // a SHA-1 digest
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855":    false,
		"Documents1Projects2MyAppConfigurationSettings":                       false,
		"node_modules_server_filesystem_v2_0_1_latest_build":                  false,
		"@modelcontextprotocol/server-github":                                 false,
		"1.2.3":                                                               false, "en_US.UTF-8": false, "${GITHUB_TOKEN}": false, "Bearer ${TOKEN}": false,
		"eyJ": false, "AKIA": false, "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ": false,
	} {
		if got := tokenShaped(v); got != want {
			t.Errorf("tokenShaped(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestImportSecretsWidened: the literal values of DB_PASS, GITHUB_PAT,
// *_KEY and *_PWD, and a token-shaped value under any name, become ${NAME}
// with the note import has always written; a token in args skips the
// entry.
func TestImportSecretsWidened(t *testing.T) {
	e := &ImportEntry{Name: "db", Server: &Server{Command: "db-server", Env: map[string]string{
		"DB_PASS": "hunter2", "GITHUB_PAT": "pat-value", "SIGNING_KEY": "k", "DB_PWD": "p", "MODE": "fast",
		"PWD": "/srv", "UPSTREAM": "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
	}, Headers: nil}}
	p := Prepare(e, userTarget)
	if p.Skip != "" {
		t.Fatal(p.Skip)
	}
	want := map[string]string{"DB_PASS": "${DB_PASS}", "GITHUB_PAT": "${GITHUB_PAT}", "SIGNING_KEY": "${SIGNING_KEY}",
		"DB_PWD": "${DB_PWD}", "MODE": "fast", "PWD": "/srv", "UPSTREAM": "${UPSTREAM}"}
	for k, v := range want {
		if p.Server.Env[k] != v {
			t.Errorf("env %s = %q, want %q", k, p.Server.Env[k], v)
		}
	}
	notes := strings.Join(p.Notes, "\n")
	for _, n := range []string{
		"env DB_PASS held a literal secret, not copied: it reads ${DB_PASS}; export DB_PASS",
		"env UPSTREAM held a literal secret, not copied: it reads ${UPSTREAM}; export UPSTREAM",
	} {
		if !strings.Contains(notes, n) {
			t.Errorf("no note %q in:\n%s", n, notes)
		}
	}
	h := Prepare(&ImportEntry{Name: "h", Server: &Server{URL: "https://h.example/mcp", Headers: map[string]string{
		"X-Upstream": "xoxb-123456789012-1234567890123-abcdefghijklmnop", "X-Team": "core"}}}, userTarget)
	if h.Server.Headers["X-Upstream"] != "${H_X_UPSTREAM}" || h.Server.Headers["X-Team"] != "core" {
		t.Errorf("headers: %v", h.Server.Headers)
	}
	a := Prepare(&ImportEntry{Name: "a", Server: &Server{Command: "srv", Args: []string{"serve", "sk-proj-abcdefghijklmnopqrstuvwxyz012345"}}}, userTarget)
	if want := `argument 2 in its args looks like a literal credential, which mcpc cannot read from a variable there; add the server with "mcpc config add", passing the credential through "env"`; a.Skip != want {
		t.Errorf("args: skip %q, want %q", a.Skip, want)
	}
}
