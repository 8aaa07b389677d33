package commands

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
)

// recorded is a runIO whose stdout, printed results (as JSON) and stderr
// are kept.
func recorded(t *testing.T, want format.Kind) (runIO, *strings.Builder, *strings.Builder) {
	var stdout, stderr strings.Builder
	return runIO{
		stderr: &stderr,
		write:  func(b []byte) error { stdout.Write(b); return nil },
		print: func(kind format.Kind, v any) error {
			if kind != want {
				t.Errorf("printed as %v, want %v", kind, want)
			}
			b, err := json.Marshal(v)
			stdout.Write(b)
			return err
		},
	}, &stdout, &stderr
}

// runConfig prints the servers with a note for an unusable one and for a
// project file not loaded, and under --verbose traces the keys it ignores.
func TestRunConfig(t *testing.T) {
	f := config.ParseFile("u.json", config.SourceUser, []byte(`{"mcpServers": {
		"ok": {"command": "srv", "alwaysAllow": ["x"]},
		"bad": {"type": "websocket", "url": "https://x.example"}}}`))
	cfg := &config.Config{Servers: map[string]*config.Entry{},
		Project: &config.File{Path: "/p/.mcp.json"}, ProjectTrust: config.Changed}
	for _, n := range f.Names {
		cfg.Servers[n] = &config.Entry{Name: n, Server: f.Servers[n], File: f}
	}
	rio, stdout, stderr := recorded(t, format.KindConfig)
	var traces []string
	err := runConfig(rio, configOptions{load: func() (*config.Config, error) { return cfg, nil },
		verbose: func(s string) { traces = append(traces, s) }})
	if err != nil {
		t.Fatal(err)
	}
	wantOut := `{"servers":[{"name":"bad","source":"u.json","server":{"type":"websocket","url":"https://x.example"},"unusable":"u.json:3:11: server \"bad\": type \"websocket\" is not a transport mcpc speaks (use \"stdio\", \"http\", \"streamable-http\" or \"sse\")"},` +
		`{"name":"ok","source":"u.json","server":{"command":"srv"}}]}`
	wantErr := `mcpc: note: u.json:3:11: server "bad": type "websocket" is not a transport mcpc speaks (use "stdio", "http", "streamable-http" or "sse")` + "\n" +
		"mcpc: note: project file /p/.mcp.json is changed since trusted and was not loaded (mcpc trust)\n"
	wantTrace := `u.json:2:28: server "ok": ignoring "alwaysAllow", another MCP host's setting that mcpc does not use`
	if stdout.String() != wantOut || stderr.String() != wantErr || len(traces) != 1 || traces[0] != wantTrace {
		t.Errorf("stdout\n%s\nwant\n%s\nstderr\n%s\nwant\n%s\ntraces %q\nwant %q", stdout, wantOut, stderr, wantErr, traces, wantTrace)
	}
}

// runTrust prints what it trusted, server by server in the file's order, and untrusting a
// file never trusted says so in a note.
func TestRunTrust(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"web": {"url": "https://x.example/mcp"}, "s": {"command": "srv", "args": ["-v"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := trustOptions{path: path, trust: true, store: config.TrustStore{Dir: filepath.Join(dir, "state")}, now: time.Now()}
	rio, stdout, stderr := recorded(t, format.KindGeneric)
	if err := runTrust(context.Background(), rio, o); err != nil {
		t.Fatal(err)
	}
	got := stdout.String()
	if !strings.HasPrefix(got, "trusted "+path+" (sha256 ") || !strings.HasSuffix(got, ")\n  web (http): https://x.example/mcp\n  s (stdio): srv -v\n") || stderr.Len() != 0 {
		t.Errorf("trust printed\n%s\nstderr %q", got, stderr)
	}
	o.trust, o.structured = false, true
	for _, note := range []string{"", "mcpc: note: " + path + " was not trusted\n"} {
		rio, stdout, stderr := recorded(t, format.KindGeneric)
		if err := runTrust(context.Background(), rio, o); err != nil {
			t.Fatal(err)
		}
		want := `{"file":` + strings.ReplaceAll(`"`+path+`"`, `\`, `\\`) + `,"sha256":"","trusted":false,"servers":[]}`
		if stdout.String() != want || stderr.String() != note {
			t.Errorf("untrust printed %s, stderr %q; want %s, %q", stdout, stderr, want, note)
		}
	}
}

// runConfigImport previews a FILE with --dry-run (and says nothing was
// written), then imports it, printing the outcome as JSON.
func TestRunConfigImport(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "other.json")
	if err := os.WriteFile(file, []byte(`{"mcpServers": {"a": {"command": "a"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	target := config.ConfigEdit{Path: filepath.Join(dir, "config.json"), Source: config.SourceUser, Dirs: config.Dirs{State: filepath.Join(dir, "state")}}
	im := &config.Import{Arg: file, Target: target, Env: config.ImportEnv{Home: dir, Cwd: dir, Getenv: func(string) string { return "" }}}
	rio, stdout, stderr := recorded(t, format.KindGeneric)
	if err := runConfigImport(context.Background(), rio, configImportOptions{im: im, dryRun: true}); err != nil {
		t.Fatal(err)
	}
	wantOut := "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"a\"\n    }\n  }\n}\n"
	if stdout.String() != wantOut || stderr.String() != "mcpc: note: dry run: "+target.Path+" not written\n" {
		t.Errorf("dry run printed\n%q\nstderr %q", stdout, stderr)
	}
	rio, stdout, stderr = recorded(t, format.KindGeneric)
	if err := runConfigImport(context.Background(), rio, configImportOptions{im: im, structured: true}); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(map[string]any{"file": target.Path, "imported": []string{"a"}, "kept": []string{}, "skipped": []string{}})
	if stdout.String() != string(want) || stderr.Len() != 0 {
		t.Errorf("import printed %s, stderr %q; want %s", stdout, stderr, want)
	}
}
