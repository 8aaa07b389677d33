package config

import (
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// FuzzParseFile: any bytes give either servers or one located config error
// (exit 3), never a panic; every parsed server has exactly one transport.
func FuzzParseFile(f *testing.F) {
	for _, seed := range []string{
		`{"mcpServers": {"a": {"command": "x", "args": ["-y"], "env": {"K": "${K:-d}"}}}}`,
		`{"mcpServers": {"h": {"url": "https://h.example/mcp", "headers": {"A": "${T}"}, "timeout": "2m"}}}`,
		`{"mcpServers": {"h": {"url": "http://127.0.0.1:1/mcp", "auth": {"type": "oauth", "scopes": ["a"]}}}}`,
		`{"mcpServers": {"a": {"command": "x",}}}`,
		`{"mcpServers": {"a": {"url": "ftp://x"}}}`,
		`{"mcpServers": []}`,
		`{"mcpServers": {"a": {"command": 1}}}`,
		"\xff\xfe{",
		`{"mcpServers":{"0":{}}}`,
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file := ParseFile("/p/.mcp.json", SourceProject, data)
		if file.Err != nil {
			if fail.CodeOf(file.Err) != fail.Config || !strings.HasPrefix(file.Err.Error(), "/p/.mcp.json") {
				t.Fatalf("error %q is not a located config error", file.Err)
			}
			return
		}
		for _, name := range file.Names {
			s := file.Servers[name]
			if s == nil {
				t.Fatalf("server %q listed but absent", name)
			}
			// A server mcpc cannot use carries its own located reason;
			// any other is exactly one of stdio or HTTP.
			if err := s.Unusable(); err != nil {
				if fail.CodeOf(err) != fail.Config || !strings.HasPrefix(err.Error(), "/p/.mcp.json") {
					t.Fatalf("server %q: reason %q is not a located config error", name, err)
				}
				continue
			}
			if (s.Command == "") == (s.URL == "") {
				t.Fatalf("server %q: command %q, url %q", name, s.Command, s.URL)
			}
		}
	})
}
