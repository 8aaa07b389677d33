package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSetServer(t *testing.T) {
	web := &Server{URL: "https://mcp.example.com/mcp"}
	for _, tc := range []struct{ name, in, want string }{
		{"new file", "", "{\n  \"mcpServers\": {\n    \"web\": {\n      \"url\": \"https://mcp.example.com/mcp\"\n    }\n  }\n}\n"},
		{"no mcpServers", "{\"$schema\": \"x\"}\n", "{\"$schema\": \"x\", \"mcpServers\": {\n  \"web\": {\n    \"url\": \"https://mcp.example.com/mcp\"\n  }\n}}\n"},
		{"empty servers", "{\n  \"mcpServers\": {}\n}\n", "{\n  \"mcpServers\": {\n    \"web\": {\n      \"url\": \"https://mcp.example.com/mcp\"\n    }\n  }\n}\n"},
		{
			"appended in the file's layout, the rest untouched",
			"{\n\t\"mcpServers\": {\n    \"a\":   {\"command\": \"x\",  \"args\": [\"1\"]}\n\t}\n}\n",
			"{\n\t\"mcpServers\": {\n    \"a\":   {\"command\": \"x\",  \"args\": [\"1\"]},\n    \"web\": {\n        \"url\": \"https://mcp.example.com/mcp\"\n    }\n\t}\n}\n",
		},
		{"one line", `{"mcpServers": {"a": {"command": "x"}}}`, `{"mcpServers": {"a": {"command": "x"}, "web": {"url":"https://mcp.example.com/mcp"}}}`},
		{
			"replaced in place",
			"{\"mcpServers\": {\n  \"web\": {\"url\": \"https://old.example.com/mcp\"},\n  \"b\": {\"command\": \"y\"}\n}}",
			"{\"mcpServers\": {\n  \"web\": {\n    \"url\": \"https://mcp.example.com/mcp\"\n  },\n  \"b\": {\"command\": \"y\"}\n}}",
		},
		{
			"keys with escapes, blanks around the colons",
			`{"mcpServers" :{"a\"\\": {"command": "x"} ,"web"  :  {"url": "https://old.example.com/mcp"}}}`,
			`{"mcpServers" :{"a\"\\": {"command": "x"} ,"web"  :  {"url":"https://mcp.example.com/mcp"}}}`,
		},
	} {
		got, err := SetServer([]byte(tc.in), "web", web)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %v\ngot  %q\nwant %q", tc.name, err, got, tc.want)
		}
	}
}

func TestRemoveServer(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		found          bool
	}{
		{"middle", "{\"mcpServers\": {\n  \"a\": {},\n  \"web\": {\"url\": \"u\"},\n  \"b\": {}\n}}\n", "{\"mcpServers\": {\n  \"a\": {},\n  \"b\": {}\n}}\n", true},
		{"first", "{\"mcpServers\": {\n  \"web\": {\"url\": \"u\"},\n  \"b\": {}\n}}\n", "{\"mcpServers\": {\n  \"b\": {}\n}}\n", true},
		{"last", "{\"mcpServers\": {\"a\": {}, \"web\": {\"url\": \"u\"}}, \"x\": 1}", "{\"mcpServers\": {\"a\": {}}, \"x\": 1}", true},
		{"only", "{\"mcpServers\": {\n  \"web\": {\"url\": \"u\"}\n}}\n", "{\"mcpServers\": {}}\n", true},
		{"absent", "{\"mcpServers\": {\"a\": {}}}", "{\"mcpServers\": {\"a\": {}}}", false},
		{"a key that only looks like it", "{\"mcpServers\": {\"we\\u0062\": {}, \"w\": {}}}", "{\"mcpServers\": {\"w\": {}}}", true},
	} {
		got, found, err := RemoveServer([]byte(tc.in), "web")
		if err != nil || string(got) != tc.want || found != tc.found {
			t.Errorf("%s: %v %v\ngot  %q\nwant %q", tc.name, found, err, got, tc.want)
		}
	}
}

// An edit goes to the user file; with project, to the project file found
// upwards from cwd (as loading finds it), else to a new one in cwd.
func TestEditTarget(t *testing.T) {
	home := t.TempDir()
	dirs := Dirs{Config: filepath.Join(home, ".config", "mcpc"), Home: home}
	repo := filepath.Join(home, "repo")
	sub := filepath.Join(repo, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1700000000, 0)
	if e := EditTarget(dirs, sub, false, now); e.Path != filepath.Join(dirs.Config, "config.json") || e.Source != SourceUser || !e.Now.Equal(now) || e.Dirs != dirs {
		t.Errorf("user edit: %+v", e)
	}
	if e := EditTarget(dirs, sub, true, now); e.Path != filepath.Join(sub, ".mcp.json") || e.Source != SourceProject {
		t.Errorf("project edit with no project file: %+v", e)
	}
	if err := os.WriteFile(filepath.Join(repo, ".mcp.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if e := EditTarget(dirs, sub, true, now); e.Path != filepath.Join(repo, ".mcp.json") || e.Source != SourceProject {
		t.Errorf("project edit: %+v", e)
	}
}
