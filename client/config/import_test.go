package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// renderImport is what each entry of a fixture becomes in a user file:
// the entry as JSON, its notes, or why it is skipped.
func renderImport(t *testing.T, app, file, project string, tgt ImportTarget) string {
	t.Helper()
	path := filepath.Join("testdata", "import", file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src := ImportSource{App: app, Path: path, Scope: "user"}
	if project != "" {
		src.Scope, src.Project = "local", project
	}
	f := ParseImport(src, data)
	if f.Err != nil {
		return "error: " + f.Err.Error() + "\n"
	}
	var b strings.Builder
	for _, e := range f.Entries {
		p := Prepare(e, tgt)
		fmt.Fprintf(&b, "%s line %d", e.Name, e.Line)
		if e.Disabled {
			b.WriteString(" disabled")
		}
		if p.Skip != "" {
			fmt.Fprintf(&b, ": skipped: %s\n", p.Skip)
			continue
		}
		j, _ := json.Marshal(p.Server)
		fmt.Fprintf(&b, ": %s\n", j)
		for _, n := range p.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	return b.String()
}

var userTarget = ImportTarget{Path: "/u/config.json", Source: SourceUser}

func TestImportReaders(t *testing.T) {
	for _, tc := range []struct {
		app, file, project, want string
	}{
		{AppClaudeDesktop, "claude_desktop_config.json", "", `
filesystem line 3: {"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/home/me/Desktop"]}
github line 7: {"command":"npx","args":["-y","@modelcontextprotocol/server-github"],"env":{"GITHUB_PERSONAL_ACCESS_TOKEN":"${GITHUB_PERSONAL_ACCESS_TOKEN}"}}
  note: env GITHUB_PERSONAL_ACCESS_TOKEN held a literal secret, not copied: it reads ${GITHUB_PERSONAL_ACCESS_TOKEN}; export GITHUB_PERSONAL_ACCESS_TOKEN
`},
		{AppClaudeCode, "claude.json", "", `
sentry line 4: {"url":"https://mcp.sentry.dev/mcp","headers":{"Authorization":"Bearer ${SENTRY_TOKEN}"}}
  note: header Authorization held a literal secret, not copied: it reads Bearer ${SENTRY_TOKEN}; export SENTRY_TOKEN
legacy line 5: {"url":"https://legacy.example.com/sse"}
  note: Claude Code marks it as the old HTTP+SSE transport (2024-11-05); its url is kept, and mcpc reaches it once it speaks that transport
helped line 6: {"url":"https://helped.example.com/mcp","headersCommand":["/opt/bin/mcp-headers","--for","helped server"]}
  note: its headersHelper became "headersCommand": mcpc tells it the server in MCPC_SERVER_NAME and MCPC_SERVER_URL (Claude Code: CLAUDE_CODE_MCP_SERVER_NAME and CLAUDE_CODE_MCP_SERVER_URL)
piped line 7: {"url":"https://piped.example.com/mcp","headersCommand":["sh","-c","op read op://vault/mcp/headers | jq -c ."]}
  note: its headersHelper became "headersCommand": mcpc tells it the server in MCPC_SERVER_NAME and MCPC_SERVER_URL (Claude Code: CLAUDE_CODE_MCP_SERVER_NAME and CLAUDE_CODE_MCP_SERVER_URL)
local line 8: {"command":"local-mcp"}
  note: its headersHelper is not carried over: it applies to HTTP servers only
`},
		{AppClaudeCode, "claude.json", "/home/dev/app/sub", `
db line 14: skipped: ${DB_DSN:-postgres://localhost} in "args": mcpc expands variables only in "env" and "headers" values; write the value out, or add the server with: mcpc config add
`},
		{AppCursor, "cursor-mcp.json", "", `
linear line 3: {"url":"https://mcp.linear.app/mcp","headers":{"X-Api-Key":"${LINEAR_KEY}"}}
tools line 4: {"command":"tools-server","env":{"HOME_DIR":"${USERHOME}","TOKEN":"${TOOLS_TOKEN}"}}
  note: its envFile .env is not carried over: set those variables in the environment, or in "env" as ${VAR}
  note: ${userHome} has no mcpc equivalent: it reads ${USERHOME}; export USERHOME
off line 5 disabled: {"command":"off-server"}
`},
		{AppVSCode, "vscode-mcp.json", "", `
perplexity line 7: {"command":"npx","args":["-y","server-perplexity-ask"],"env":{"PERPLEXITY_API_KEY":"${PERPLEXITY_KEY}","ROOT":"${WORKSPACEFOLDER}"}}
  note: ${input:perplexity-key} has no mcpc equivalent: it reads ${PERPLEXITY_KEY}; export PERPLEXITY_KEY
  note: ${workspaceFolder} has no mcpc equivalent: it reads ${WORKSPACEFOLDER}; export WORKSPACEFOLDER
  note: VS Code prompted for PERPLEXITY_KEY: "Perplexity API Key"
github line 13: {"url":"https://api.githubcopilot.com/mcp/"}
fetch line 14: skipped: ${workspaceFolder} in "args": mcpc expands variables only in "env" and "headers" values; write the value out, or add the server with: mcpc config add
`},
		{AppWindsurf, "windsurf-mcp_config.json", "", `
figma line 3: {"url":"https://figma.example.com/mcp","headers":{"Authorization":"Bearer ${FIGMA_TOKEN}"}}
brave line 4: {"command":"npx","args":["-y","@modelcontextprotocol/server-brave-search"],"env":{"BRAVE_API_KEY":"${BRAVE_API_KEY}"}}
  note: env BRAVE_API_KEY held a literal secret, not copied: it reads ${BRAVE_API_KEY}; export BRAVE_API_KEY
`},
		{AppCodex, "codex-config.toml", "", `
docs line 3: {"command":"docs-server","args":["--stdio"],"env":{"DOCS_TOKEN":"${DOCS_TOKEN}","MODE":"fast"}}
  note: not carried over: startup_timeout_sec
  note: env DOCS_TOKEN held a literal secret, not copied: it reads ${DOCS_TOKEN}; export DOCS_TOKEN
remote line 9: {"url":"https://mcp.example.com/mcp","headers":{"X-Team":"${TEAM_ID}"},"bearerTokenEnv":"REMOTE_TOKEN"}
paused line 14 disabled: {"command":"paused-server"}
`},
		{AppGemini, "gemini-settings.json", "", `
stream line 4: {"url":"https://stream.example.com/mcp"}
  note: not carried over: timeout, trust
events line 5: {"url":"https://events.example.com/sse"}
  note: Gemini CLI marks it as the old HTTP+SSE transport (2024-11-05); its url is kept, and mcpc reaches it once it speaks that transport
py line 6: {"command":"python","args":["-m","server"],"env":{"API_KEY":"${MY_API_KEY}","LEVEL":"debug"},"cwd":"./srv","includeTools":["a"],"excludeTools":["a_*"]}
`},
		{AppClaudeCode, "broken.json", "", `
error: testdata/import/broken.json:3:27: invalid JSON: invalid character '}' looking for beginning of object key string
`},
		{AppCodex, "broken.toml", "", `
error: testdata/import/broken.toml:2: invalid TOML: strings cannot contain newlines
`},
	} {
		t.Run(tc.app+"/"+tc.file, func(t *testing.T) {
			got := renderImport(t, tc.app, tc.file, tc.project, userTarget)
			if want := strings.TrimPrefix(tc.want, "\n"); got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestImportSecrets(t *testing.T) {
	// Into the user file with --keep-secrets the literals stay, and say so.
	got := renderImport(t, AppClaudeCode, "claude.json", "", ImportTarget{Path: "/u/config.json", Source: SourceUser, KeepSecrets: true})
	want := `sentry line 4: {"url":"https://mcp.sentry.dev/mcp","headers":{"Authorization":"Bearer sntrys_literal"}}
legacy line 5: {"url":"https://legacy.example.com/sse"}
  note: Claude Code marks it as the old HTTP+SSE transport (2024-11-05); its url is kept, and mcpc reaches it once it speaks that transport
`
	got = got[:strings.Index(got, "helped line")]
	if got != want {
		t.Errorf("--keep-secrets, user file: got:\n%s\nwant:\n%s", got, want)
	}
	// A project file never gets one, --keep-secrets or not.
	got = renderImport(t, AppWindsurf, "windsurf-mcp_config.json", "", ImportTarget{Path: "/p/.mcp.json", Source: SourceProject, KeepSecrets: true})
	want = `figma line 3: {"url":"https://figma.example.com/mcp","headers":{"Authorization":"Bearer ${FIGMA_TOKEN}"}}
  note: --keep-secrets does not apply to a project file, which is shared
brave line 4: {"command":"npx","args":["-y","@modelcontextprotocol/server-brave-search"],"env":{"BRAVE_API_KEY":"${BRAVE_API_KEY}"}}
  note: env BRAVE_API_KEY held a literal secret, not copied: it reads ${BRAVE_API_KEY}; export BRAVE_API_KEY
  note: --keep-secrets does not apply to a project file, which is shared
`
	if got != want {
		t.Errorf("--keep-secrets, project file: got:\n%s\nwant:\n%s", got, want)
	}
	e := &ImportEntry{Name: "api", Server: &Server{URL: "https://x.example.com/mcp", Headers: map[string]string{"X-API-Key": "k1", "Authorization": "token-only"}}}
	p := Prepare(e, ImportTarget{Path: "/p/.mcp.json", Source: SourceProject})
	if h := p.Server.Headers; h["X-API-Key"] != "${API_X_API_KEY}" || h["Authorization"] != "${API_TOKEN}" {
		t.Errorf("headers = %v", h)
	}
	if e.Server.Headers["X-API-Key"] != "k1" {
		t.Error("Prepare changed the entry it was given")
	}
	// Credentials whose names carry none of TOKEN, KEY, SECRET or PASSWORD
	// are credentials all the same: a project file gets none of them.
	e = &ImportEntry{Name: "px", Server: &Server{URL: "https://x.example.com/mcp",
		Headers: map[string]string{"Proxy-Authorization": "Basic dXNlcjpwYXNz", "Cookie": "session=abc", "X-Auth": "a1"}}}
	p = Prepare(e, ImportTarget{Path: "/p/.mcp.json", Source: SourceProject})
	if h := p.Server.Headers; h["Proxy-Authorization"] != "${PX_PROXY_AUTHORIZATION}" || h["Cookie"] != "${PX_COOKIE}" || h["X-Auth"] != "${PX_X_AUTH}" {
		t.Errorf("headers = %v", h)
	}
	e = &ImportEntry{Name: "cr", Server: &Server{Command: "x", Env: map[string]string{"GOOGLE_APPLICATION_CREDENTIALS_JSON": "{}", "AUTH_HEADER": "h", "MODE": "fast"}}}
	p = Prepare(e, ImportTarget{Path: "/p/.mcp.json", Source: SourceProject})
	if env := p.Server.Env; env["GOOGLE_APPLICATION_CREDENTIALS_JSON"] != "${GOOGLE_APPLICATION_CREDENTIALS_JSON}" || env["AUTH_HEADER"] != "${AUTH_HEADER}" || env["MODE"] != "fast" {
		t.Errorf("env = %v", env)
	}
}

func TestImportValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Server
		want string
	}{
		{"web", Server{URL: "http://example.com/mcp"}, `URL "http://example.com/mcp" uses plain http on a non-loopback host; use https`},
		{"bad name", Server{Command: "x"}, `invalid server name "bad name": use letters, digits, '.', '_' and '-' (not starting with '-')`},
		{"both", Server{Command: "x", URL: "https://x.example.com"}, `has both "command" and "url"; a server is either stdio or HTTP`},
		{"ok", Server{Command: "x"}, ""},
	} {
		p := Prepare(&ImportEntry{Name: tc.name, Server: &tc.s}, userTarget)
		if p.Skip != tc.want {
			t.Errorf("%s: skip = %q, want %q", tc.name, p.Skip, tc.want)
		}
		if (p.Server == nil) != (tc.want != "") {
			t.Errorf("%s: server = %v", tc.name, p.Server)
		}
	}
}

func TestImportMerge(t *testing.T) {
	data := []byte("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"old\"}\n  }\n}\n")
	entries := []*Prepared{{Name: "a", Server: &Server{Command: "new"}}, {Name: "b", Server: &Server{Command: "b"}}, {Name: "c", Skip: "bad"}}
	out, written, kept, err := Merge("/u/config.json", SourceUser, data, entries, false)
	if err != nil || strings.Join(written, ",") != "b" || strings.Join(kept, ",") != "a" {
		t.Fatalf("Merge = %v %v %v", written, kept, err)
	}
	if f := ParseFile("/u/config.json", SourceUser, out); f.Err != nil || f.Servers["a"].Command != "old" || f.Servers["b"].Command != "b" {
		t.Fatalf("merged file: %s", out)
	}
	out, written, kept, _ = Merge("/u/config.json", SourceUser, data, entries, true)
	if f := ParseFile("/u/config.json", SourceUser, out); strings.Join(written, ",") != "a,b" || len(kept) != 0 || f.Servers["a"].Command != "new" {
		t.Fatalf("overwrite: %v %v %s", written, kept, out)
	}
	if _, _, _, err := Merge("/u/config.json", SourceUser, []byte("{"), entries, false); err == nil {
		t.Fatal("a broken target file was merged into")
	}
}

func TestImportSourcesPerOS(t *testing.T) {
	env := func(goos string, vars map[string]string) ImportEnv {
		return ImportEnv{Home: "/h", Cwd: t.TempDir(), GOOS: goos, Getenv: func(k string) string { return vars[k] }}
	}
	for _, tc := range []struct {
		app  string
		e    ImportEnv
		want string
	}{
		{AppClaudeDesktop, env("linux", nil), "/h/.config/Claude/claude_desktop_config.json"},
		{AppClaudeDesktop, env("linux", map[string]string{"XDG_CONFIG_HOME": "/x"}), "/x/Claude/claude_desktop_config.json"},
		{AppClaudeDesktop, env("darwin", nil), "/h/Library/Application Support/Claude/claude_desktop_config.json"},
		{AppClaudeDesktop, env("windows", map[string]string{"APPDATA": "/appdata"}), "/appdata/Claude/claude_desktop_config.json"},
		{AppVSCode, env("linux", nil), "/h/.config/Code/User/mcp.json"},
		{AppVSCode, env("darwin", nil), "/h/Library/Application Support/Code/User/mcp.json"},
		{AppVSCode, env("windows", map[string]string{"APPDATA": "/appdata"}), "/appdata/Code/User/mcp.json"},
		{AppClaudeCode, env("linux", nil), "/h/.claude.json"},
		{AppCursor, env("windows", nil), "/h/.cursor/mcp.json"},
		{AppWindsurf, env("darwin", nil), "/h/.codeium/windsurf/mcp_config.json"},
		{AppCodex, env("linux", nil), "/h/.codex/config.toml"},
		{AppCodex, env("linux", map[string]string{"CODEX_HOME": "/c"}), "/c/config.toml"},
		{AppGemini, env("linux", nil), "/h/.gemini/settings.json"},
	} {
		if got := ImportSources(tc.app, tc.e)[0].Path; got != filepath.FromSlash(tc.want) {
			t.Errorf("%s on %s: %s, want %s", tc.app, tc.e.GOOS, got, tc.want)
		}
	}
	// Project files: from the working directory up to the repository root.
	root := t.TempDir()
	for _, d := range []string{".git", ".cursor", "a/b"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, ".cursor", "mcp.json"), []byte(`{"mcpServers": {}}`), 0o600)
	e := env("linux", nil)
	e.Cwd = filepath.Join(root, "a", "b")
	srcs := ImportSources(AppCursor, e)
	if len(srcs) != 2 || srcs[1].Path != filepath.Join(root, ".cursor", "mcp.json") || srcs[1].Scope != "project" {
		t.Errorf("cursor sources = %+v", srcs)
	}
	if srcs := ImportSources(AppGemini, e); len(srcs) != 1 {
		t.Errorf("gemini sources = %+v, want the user file only", srcs)
	}
}

func TestDetectImportApp(t *testing.T) {
	for _, tc := range []struct{ path, data, want string }{
		{"/x/config.toml", "", AppCodex},
		{"/x/claude_desktop_config.json", "", AppClaudeDesktop},
		{"/x/.mcp.json", "", AppClaudeCode},
		{"/x/.claude.json", "", AppClaudeCode},
		{"/x/mcp_config.json", "", AppWindsurf},
		{"/x/.gemini/settings.json", "", AppGemini},
		{"/x/.cursor/mcp.json", "", AppCursor},
		{"/x/.vscode/mcp.json", "", AppVSCode},
		{"/x/a.json", `{"servers": {}} // c`, AppVSCode},
		{"/x/a.json", `{"projects": {}, "mcpServers": {}}`, AppClaudeCode},
		{"/x/a.json", `{"mcpServers": {"a": {"serverUrl": "https://x"}}}`, AppWindsurf},
		{"/x/a.json", `{"mcpServers": {"a": {"httpUrl": "https://x"}}}`, AppGemini},
		{"/x/a.json", `{"mcpServers": {"a": {"env": {"A": "${env:A}"}}}}`, AppCursor},
		{"/x/a.json", `{"mcpServers": {"a": {"command": "x"}}}`, AppClaudeCode},
	} {
		if got, err := DetectImportApp(tc.path, []byte(tc.data)); got != tc.want || err != nil {
			t.Errorf("%s %s: %q, %v; want %q", tc.path, tc.data, got, err, tc.want)
		}
	}
	if _, err := DetectImportApp("/x/a.json", []byte(`{"other": 1}`)); err == nil || err.Error() != `/x/a.json has no "mcpServers" or "servers" object` {
		t.Errorf("no servers: %v", err)
	}
}

func TestStripJSONC(t *testing.T) {
	in := "{\n  // c \"x\"\n  \"a\": \"//not, a comment\", /* b\n */ \"b\": [1, 2,],\n  \"q\": \"\\\"// nor, \\\\\", \"e\": \"\\\\\"// a comment\n}"
	out := stripJSONC([]byte(in))
	if len(out) != len(in) || strings.Count(string(out), "\n") != strings.Count(in, "\n") {
		t.Fatalf("offsets moved: %q", out)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil || v["a"] != "//not, a comment" || v["q"] != `"// nor, \` || v["e"] != `\` {
		t.Fatalf("%q: %v %v", out, v, err)
	}
}

func TestExportName(t *testing.T) {
	for in, want := range map[string]string{"gh-pat": "GH_PAT", "workspaceFolder": "WORKSPACEFOLDER", "1x": "_1X", "a.b": "A_B"} {
		if got := exportName(in); got != want {
			t.Errorf("exportName(%q) = %q, want %q", in, got, want)
		}
	}
}

// A credential in args or in a URL's query cannot become ${NAME}: the
// entry is skipped, unless --keep-secrets keeps literals in the user file.
func TestImportLiteralCredentialInArgsOrQuery(t *testing.T) {
	project := ImportTarget{Path: "/p/.mcp.json", Source: SourceProject}
	for _, c := range []struct {
		srv  *Server
		skip string
	}{
		{&Server{Command: "srv", Args: []string{"--api-key", "sk-1"}}, `the value of api-key in its args looks like a literal credential`},
		{&Server{Command: "srv", Args: []string{"--token=abc"}}, `the value of token in its args looks like a literal credential`},
		{&Server{URL: "https://x.example.com/mcp?api_key=abc&q=1"}, `the query parameter "api_key" of its url looks like a literal credential`},
		{&Server{Command: "srv", Args: []string{"--key-file", "k.pem", "--verbose"}}, ``},
		{&Server{Command: "srv", Args: []string{"--api-key", "--verbose"}}, ``},
		{&Server{URL: "https://x.example.com/mcp?q=1"}, ``},
	} {
		p := Prepare(&ImportEntry{Name: "x", Server: c.srv}, project)
		if c.skip == "" {
			if p.Skip != "" {
				t.Errorf("%+v: skipped: %s", c.srv, p.Skip)
			}
			continue
		}
		want := c.skip + `, which mcpc cannot read from a variable there; add the server with "mcpc config add", passing the credential through "env"`
		if p.Skip != want {
			t.Errorf("%+v: skip = %q, want %q", c.srv, p.Skip, want)
		}
		user := Prepare(&ImportEntry{Name: "x", Server: c.srv}, ImportTarget{Path: "/u/config.json", Source: SourceUser, KeepSecrets: true})
		if user.Skip != "" || !user.KeptSecrets {
			t.Errorf("%+v into the user file with --keep-secrets: skip %q, kept %v", c.srv, user.Skip, user.KeptSecrets)
		}
	}
}
