package commands

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

// failed is what a parse returned, as a test pins it: the usage error's
// message and exit, or "" for none.
func failed(t *testing.T, err error) string {
	t.Helper()
	msg, exit := refused(t, err)
	if err != nil && exit != 2 {
		t.Fatalf("%v: exit %d, want 2", err, exit)
	}
	return msg
}

var stdioTarget = config.AdHoc{Stdio: "srv --flag"}

// mcpc list's words, without a server: which is the server, the kind,
// the name, and what is refused.
func TestListArgs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		adhoc config.AdHoc
		args  []string
		want  listOptions
		err   string
	}{
		{"nothing: the servers", config.AdHoc{}, nil, listOptions{kind: "tools"}, ""},
		{"a server's tools", config.AdHoc{}, []string{"fs"}, listOptions{server: "fs", kind: "tools"}, ""},
		{"a kind", config.AdHoc{}, []string{"fs", "prompts"}, listOptions{server: "fs", kind: "prompts"}, ""},
		{"a tool", config.AdHoc{}, []string{"fs", "read_file"}, listOptions{server: "fs", kind: "tools", name: "read_file"}, ""},
		{"a kind and a name", config.AdHoc{}, []string{"fs", "templates", "file"}, listOptions{server: "fs", kind: "templates", name: "file"}, ""},
		{"one word too many", config.AdHoc{}, []string{"fs", "tools", "a", "b"}, listOptions{server: "fs", kind: "tools", name: "a"}, `unexpected argument "b"`},
		{"one resource", config.AdHoc{}, []string{"fs", "resources", "x"}, listOptions{server: "fs", kind: "resources", name: "x"}, "cannot describe one resource"},
		{"--stdio: no server word", stdioTarget, []string{"prompts"}, listOptions{kind: "prompts"}, ""},
		{"--stdio and nothing", stdioTarget, nil, listOptions{kind: "tools"}, ""},
		{"--stdio and a URL", stdioTarget, []string{"https://x.example/mcp"}, listOptions{kind: "tools"}, "give either a server URL or a --stdio command, not both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := listArgs(&globals{adhoc: tc.adhoc}, tc.args)
			if msg := failed(t, err); msg != tc.err {
				t.Fatalf("error %q, want %q", msg, tc.err)
			}
			if tc.err == "" && got != tc.want {
				t.Errorf("listArgs(%q) = %+v, want %+v", tc.args, got, tc.want)
			}
		})
	}
}

// mcpc prompt's words: server, name and key=value arguments.
func TestPromptArgs(t *testing.T) {
	for _, tc := range []struct {
		name           string
		adhoc          config.AdHoc
		words          []string
		server, prompt string
		args           map[string]string
		err            string
	}{
		{"server, name, arguments", config.AdHoc{}, []string{"ev", "greet", "city=Paris", "n=2"}, "ev", "greet", map[string]string{"city": "Paris", "n": "2"}, ""},
		{"no name", config.AdHoc{}, []string{"ev"}, "", "", nil, "missing prompt NAME"},
		{"no server", config.AdHoc{}, nil, "", "", nil, "missing SERVER"},
		{"--stdio: the first word is the name", stdioTarget, []string{"greet"}, "", "greet", map[string]string{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := promptArgs(&globals{adhoc: tc.adhoc}, tc.words, "", toolschema.Source{Cwd: t.TempDir()})
			if msg := failed(t, err); msg != tc.err {
				t.Fatalf("error %q, want %q", msg, tc.err)
			}
			if tc.err != "" {
				return
			}
			if got.server != tc.server || got.name != tc.prompt || len(got.args) != len(tc.args) {
				t.Fatalf("promptArgs(%q) = %+v", tc.words, got)
			}
			for k, v := range tc.args {
				if got.args[k] != v {
					t.Errorf("argument %s = %q, want %q", k, got.args[k], v)
				}
			}
		})
	}
}

// mcpc diff's two words: which is the snapshot file and which the
// server, decided before anything is read or started.
func TestDiffArgs(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"old.json": "{}", "servers.json": `{"mcpServers":{"fs":{"command":"fs-server"}}}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	g := func(adhoc config.AdHoc) *globals {
		return &globals{adhoc: adhoc, cwd: dir, configFiles: []string{filepath.Join(dir, "servers.json")}}
	}
	for _, tc := range []struct {
		name     string
		adhoc    config.AdHoc
		args     []string
		old, new diffSide
		err      string
	}{
		{"server then file", config.AdHoc{}, []string{"fs", "old.json"}, diffSide{file: "old.json"}, diffSide{server: "fs"}, ""},
		{"file then server", config.AdHoc{}, []string{"old.json", "fs"}, diffSide{file: "old.json"}, diffSide{server: "fs"}, ""},
		{"two servers", config.AdHoc{}, []string{"fs", "fs"}, diffSide{}, diffSide{}, "mcpc diff compares a server with a snapshot file, not two servers"},
		{"one word", config.AdHoc{}, []string{"fs"}, diffSide{}, diffSide{}, "mcpc diff needs two arguments, not 1"},
		{"--stdio and a file", stdioTarget, []string{"old.json"}, diffSide{file: "old.json"}, diffSide{}, ""},
		{"--stdio and two words", stdioTarget, []string{"a", "b"}, diffSide{}, diffSide{}, "mcpc diff needs one SNAPSHOT argument with a server on the command line, not 2"},
		{"--stdio and no file", stdioTarget, []string{"gone.json"}, diffSide{}, diffSide{}, "snapshot file gone.json does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := diffArgs(g(tc.adhoc), tc.args)
			if msg := failed(t, err); msg != tc.err {
				t.Fatalf("error %q, want %q", msg, tc.err)
			}
			if tc.err == "" && (got.old != tc.old || got.new != tc.new) {
				t.Errorf("diffArgs(%q) = old %+v, new %+v; want old %+v, new %+v", tc.args, got.old, got.new, tc.old, tc.new)
			}
		})
	}
}
