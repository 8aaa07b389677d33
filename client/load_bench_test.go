package client

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchConfig writes a user config and a trusted project file with n
// servers each, the shape every invocation reads before it connects.
func benchConfig(b *testing.B, n int) LoadOptions {
	b.Helper()
	home := filepath.Join(b.TempDir(), "home")
	env := map[string]string{"HOME": home}
	dirs := DirsFrom(func(k string) string { return env[k] })
	servers := func(prefix string) string {
		var s []string
		for i := range n {
			if i%2 == 0 {
				s = append(s, fmt.Sprintf(`%q: {"command": "npx", "args": ["-y", "server-%d"], "env": {"API_KEY": "${API_KEY_%d:-none}"}, "timeout": "90s"}`, prefix+fmt.Sprint(i), i, i))
			} else {
				s = append(s, fmt.Sprintf(`%q: {"url": "https://mcp%d.example/mcp", "bearerTokenEnv": "TOKEN_%d", "headers": {"X-Team": "${TEAM:-core}"}, "protocol": "auto"}`, prefix+fmt.Sprint(i), i, i))
			}
		}
		return `{"mcpServers": {` + strings.Join(s, ",\n") + `}}`
	}
	write(b, dirs.UserConfigFile(), servers("user-"))
	repo := filepath.Join(home, "src", "repo")
	write(b, filepath.Join(repo, ".git", "HEAD"), "ref: main\n")
	proj := filepath.Join(repo, ".mcp.json")
	write(b, proj, servers("proj-"))
	data, err := os.ReadFile(proj)
	if err != nil {
		b.Fatal(err)
	}
	hash := hashBytes(data)
	if _, err := (TrustStore{dirs.State}).Set(context.Background(), proj, hash, time.Now()); err != nil {
		b.Fatal(err)
	}
	return LoadOptions{Dirs: dirs, Cwd: repo}
}

// BenchmarkLoad is what every invocation pays before it connects: read and
// validate the user and project files, check the project's trust, look the
// server up.
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{4, 40} {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) {
			opts := benchConfig(b, n)
			for b.Loop() {
				c, err := Load(opts)
				if err != nil {
					b.Fatal(err)
				}
				if c.ProjectTrust != Trusted {
					b.Fatal("project file not trusted")
				}
				if _, err := c.Lookup("proj-1"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkExpand(b *testing.B) {
	getenv := func(k string) string {
		if k == "TOKEN" {
			return "secret"
		}
		return ""
	}
	for b.Loop() {
		if _, err := Expand("Bearer ${TOKEN} team=${TEAM:-core}", getenv); err != nil {
			b.Fatal(err)
		}
	}
}

// benchTool has the kind of inputSchema real servers send: several typed
// properties, required ones, bounds and a nested object.
func benchTool(b *testing.B) *mcp.Tool {
	b.Helper()
	var schema map[string]any
	err := json.Unmarshal([]byte(`{"type":"object","required":["q","limit"],"properties":{
		"q":{"type":"string","minLength":1},
		"limit":{"type":"integer","minimum":1,"maximum":100},
		"state":{"type":"string","enum":["open","closed","all"]},
		"labels":{"type":"array","items":{"type":"string"}},
		"draft":{"type":"boolean"},
		"sort":{"type":"object","properties":{"by":{"type":"string"},"desc":{"type":"boolean"}}}}}`), &schema)
	if err != nil {
		b.Fatal(err)
	}
	return &mcp.Tool{Name: "search", InputSchema: schema}
}

// BenchmarkValidateArgs checks arguments against the tool's inputSchema, as
// every mcpc call does before sending.
func BenchmarkValidateArgs(b *testing.B) {
	tool := benchTool(b)
	args := map[string]any{"q": "bug", "limit": json.Number("20"), "state": "open",
		"labels": []any{"a", "b"}, "sort": map[string]any{"by": "updated", "desc": true}}
	for b.Loop() {
		if skipped, err := ValidateArgs(tool, args); err != nil || skipped != "" {
			b.Fatal(skipped, err)
		}
	}
}

func BenchmarkPropertyTypes(b *testing.B) {
	tool := benchTool(b)
	for b.Loop() {
		if len(PropertyTypes(tool)) != 6 {
			b.Fatal("wrong property count")
		}
	}
}
