package config

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
