package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// A Claude Code style project file: its hosts' keys are accepted, what says
// how to reach a server is honoured, and one entry mcpc cannot use spoils
// only itself.
const claudeStyle = `{"mcpServers": {
  "local": {"type": "stdio", "command": "node", "args": ["s.js"], "envFile": ".env", "autoApprove": ["echo"], "timeout": 30000},
  "events": {"type": "sse", "url": "https://x.example/sse", "alwaysAllow": [], "description": "old server"},
  "modern": {"type": "streamable-http", "url": "https://x.example/mcp", "trust": true},
  "off": {"command": "node", "disabled": true},
  "ws": {"type": "websocket", "url": "wss://x.example/ws"}
}}`

func TestHostEntries(t *testing.T) {
	f := ParseFile("/p/.mcp.json", SourceProject, []byte(claudeStyle))
	if f.Err != nil {
		t.Fatal(f.Err)
	}
	if got := strings.Join(f.Names, ","); got != "local,events,modern,off,ws" {
		t.Fatalf("names = %q", got)
	}
	local, events, modern := f.Servers["local"], f.Servers["events"], f.Servers["modern"]
	for name, want := range map[string]string{"local": "", "events": "sse", "modern": "http"} {
		if s := f.Servers[name]; s.TransportPin("") != want {
			t.Errorf("%s: TransportPin %q; want %q", name, s.TransportPin(""), want)
		}
	}
	if local.EnvFile != ".env" || time.Duration(local.Timeout) != 30*time.Second {
		t.Errorf("local: envFile %q, timeout %v", local.EnvFile, time.Duration(local.Timeout))
	}
	if got := strings.Join(local.IgnoredNotes(), "\n"); got != `/p/.mcp.json:2:86: server "local": ignoring "autoApprove", another MCP host's setting that mcpc does not use` {
		t.Errorf("local notes = %q", got)
	}
	if n := len(events.IgnoredNotes()); n != 2 {
		t.Errorf("events: %d notes, want 2 (alwaysAllow, description)", n)
	}
	if n := len(modern.IgnoredNotes()); n != 1 {
		t.Errorf("modern: %d notes, want 1 (trust)", n)
	}
	for _, name := range []string{"local", "events", "modern", "off"} {
		if err := f.Servers[name].Unusable(); err != nil {
			t.Errorf("%s unusable: %v", name, err)
		}
	}
	if !f.Servers["off"].Disabled {
		t.Error(`"disabled": true not read`)
	}

	c := &Config{Servers: map[string]*Entry{}}
	for _, name := range f.Names {
		c.Servers[name] = &Entry{Name: name, Server: f.Servers[name], File: f}
	}
	if _, err := c.Lookup("events"); err != nil {
		t.Fatal(err)
	}
	_, err := c.Lookup("off")
	if fe := fail.As(err); fe == nil || fe.Code != fail.Config ||
		fe.Msg != `server "off" is disabled ("disabled": true in /p/.mcp.json)` ||
		fe.Hint != `remove "disabled": true from the entry, then run: mcpc trust /p/.mcp.json` {
		t.Errorf("Lookup(off) = %#v", fe)
	}
	_, err = c.Lookup("ws")
	if fe := fail.As(err); fe == nil || fe.Code != fail.Config ||
		fe.Msg != `/p/.mcp.json:6:10: server "ws": type "websocket" is not a transport mcpc speaks (use "stdio", "http", "streamable-http" or "sse")` ||
		fe.Hint != "fix the entry, then run: mcpc trust /p/.mcp.json" {
		t.Errorf("Lookup(ws) = %#v", fe)
	}
}

func TestTimeoutUnits(t *testing.T) {
	for in, want := range map[string]time.Duration{`1500`: 1500 * time.Millisecond, `"90s"`: 90 * time.Second, `0.5`: 500 * time.Microsecond} {
		var d Timeout
		if err := d.UnmarshalJSON([]byte(in)); err != nil || time.Duration(d) != want {
			t.Errorf("timeout %s = %v, %v; want %v", in, time.Duration(d), err, want)
		}
	}
	for _, in := range []string{`-1`, `"soon"`, `1e300`} {
		var d Timeout
		if err := d.UnmarshalJSON([]byte(in)); err == nil || !strings.Contains(err.Error(), "number of milliseconds") {
			t.Errorf("timeout %s: error %v", in, err)
		}
	}
}

// An unknown key stays a file error, with a suggestion that covers other
// hosts' keys and near misses.
func TestUnknownKeySuggests(t *testing.T) {
	for data, want := range map[string]string{
		`{"mcpServers": {"a": {"command": "x", "autoAprove": []}}}`: `f.json:1:39: unknown field "autoAprove" in server "a" (did you mean "autoApprove"?)`,
		`{"mcpServers": {"a": {"command": "x", "EnvFile": "e"}}}`:   `f.json:1:39: unknown field "EnvFile" in server "a" (did you mean "envFile"?)`,
		`{"mcpServers": {"a": {"command": "x", "comand": "y"}}}`:    `f.json:1:39: unknown field "comand" in server "a" (did you mean "command"?)`,
		`{"mcpServers": {"a": {"command": "x", "roots": []}}}`:      `f.json:1:39: unknown field "roots" in server "a"`,
	} {
		f := ParseFile("f.json", SourceProject, []byte(data))
		if f.Err == nil || f.Err.Error() != want {
			t.Errorf("%s: error %v, want %q", data, f.Err, want)
		}
	}
}

func TestDotenv(t *testing.T) {
	vars, err := parseDotenv("e", []byte("# comment\n\nA=1\nexport B = two words  # note\r\nC=\"quoted # not a comment\\n\"\nD='lit\\n' # c\nE=\nF=a=b\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"A=1", "B=two words", "C=quoted # not a comment\n", `D=lit\n`, "E=", "F=a=b"}
	if strings.Join(vars, "|") != strings.Join(want, "|") {
		t.Fatalf("vars = %q, want %q", vars, want)
	}
	for in, msg := range map[string]string{
		"A=1\nsecret-value-no-equals\n": "envFile e:2: expected KEY=VALUE",
		"1X=v\n":                        "envFile e:1: 1X is not an environment variable name",
		"K=\"s3cret\n":                  "envFile e:1: K: the quoted value has no closing quote",
		"K='s3cret' tail\n":             "envFile e:1: K: unexpected text after the closing quote",
	} {
		_, err := parseDotenv("e", []byte(in))
		if err == nil || err.Error() != msg {
			t.Errorf("%q: error %v, want %q", in, err, msg)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") || err != nil && strings.Contains(err.Error(), "secret-value") {
			t.Errorf("%q: the error quotes the value", in)
		}
	}
}

func TestEnvFileVars(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "sub", ".env"), "TOKEN=abc\n")
	f := &File{Path: filepath.Join(dir, ".mcp.json"), Source: SourceProject}
	e := &Entry{Name: "s", Server: &Server{Command: "x", EnvFile: "sub/.env"}, File: f}
	// Relative to the config file's directory, not the working directory.
	vars, err := e.EnvFileVars("/elsewhere")
	if err != nil || strings.Join(vars, ",") != "TOKEN=abc" {
		t.Fatalf("vars %q, %v", vars, err)
	}
	e.Server.EnvFile = "missing.env"
	_, err = e.EnvFileVars("/elsewhere")
	fe := fail.As(err)
	if fe == nil || fe.Code != fail.Config || fe.Msg != `server "s": cannot read envFile `+filepath.Join(dir, "missing.env")+": no such file or directory" {
		t.Fatalf("missing envFile: %#v", fe)
	}
	big := filepath.Join(dir, "big.env")
	if err := os.WriteFile(big, []byte(strings.Repeat("#\n", MaxEnvFile)), 0o600); err != nil {
		t.Fatal(err)
	}
	e.Server.EnvFile = big
	if _, err := e.EnvFileVars(""); err == nil || !strings.Contains(err.Error(), "larger than the 65536-byte limit") {
		t.Fatalf("large envFile: %v", err)
	}
	if vars, err := (&Entry{Server: &Server{Command: "x"}}).EnvFileVars(""); vars != nil || err != nil {
		t.Fatalf("no envFile: %q, %v", vars, err)
	}
}
