package config

import (
	"fmt"
	"strings"
	"testing"
)

// manyServers is a file of app with n servers: JSON's "mcpServers" or
// Codex's [mcp_servers.NAME] tables.
func manyServers(app string, n int) []byte {
	var b strings.Builder
	if app == AppCodex {
		for i := range n {
			fmt.Fprintf(&b, "[mcp_servers.s%d]\ncommand = \"npx\"\nargs = [\"-y\", \"server-%d\"]\nenv = { API_KEY = \"k%d\" }\n\n", i, i, i)
		}
		return []byte(b.String())
	}
	b.WriteString("{\n  \"mcpServers\": {")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n    \"s%d\": {\"command\": \"npx\", \"args\": [\"-y\", \"server-%d\"], \"env\": {\"API_KEY\": \"k%d\"}}", i, i, i)
	}
	b.WriteString("\n  }\n}\n")
	return []byte(b.String())
}

// importAll is what 'mcpc config import FILE' does with the file's bytes:
// read the entries, make each fit for the user file, merge them into it.
func importAll(tb testing.TB, app string, data, into []byte) []byte {
	tb.Helper()
	f := ParseImport(ImportSource{App: app, Path: "/a/file", Scope: "file"}, data)
	if f.Err != nil {
		tb.Fatal(f.Err)
	}
	var ps []*Prepared
	for _, e := range f.Entries {
		ps = append(ps, Prepare(e, userTarget))
	}
	out, _, _, err := Merge(userTarget.Path, SourceUser, into, ps, false)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// BenchmarkImport: the work of an import grows with the number of
// entries, not with its square.
func BenchmarkImport(b *testing.B) {
	for _, app := range []string{AppClaudeCode, AppCodex} {
		for _, n := range []int{1000, 10000} {
			data := manyServers(app, n)
			b.Run(fmt.Sprintf("%s/servers=%d", app, n), func(b *testing.B) {
				for b.Loop() {
					importAll(b, app, data, nil)
				}
			})
		}
	}
}

// TestImportTenThousand: every one of 10,000 entries is imported, in the
// file's order, each as it was written, with its secret rewritten.
func TestImportTenThousand(t *testing.T) {
	const n = 10000
	for _, app := range []string{AppClaudeCode, AppCodex} {
		t.Run(app, func(t *testing.T) {
			into := []byte("{\n  \"mcpServers\": {\n    \"s5\": {\"command\": \"mine\"}\n  }\n}\n")
			out := importAll(t, app, manyServers(app, n), into)
			f := ParseFile(userTarget.Path, SourceUser, out)
			if f.Err != nil {
				t.Fatal(f.Err)
			}
			if len(f.Names) != n {
				t.Fatalf("%d servers written, want %d", len(f.Names), n)
			}
			for i, name := range f.Names {
				// s5 was there already and stays first, as it was.
				var want int
				switch {
				case i == 0:
					want = 5
				case i <= 5:
					want = i - 1
				default:
					want = i
				}
				if name != fmt.Sprintf("s%d", want) {
					t.Fatalf("server %d is %q, want s%d", i, name, want)
				}
				s := f.Servers[name]
				if want == 5 {
					if s.Command != "mine" {
						t.Fatalf("s5 was replaced: %+v", s)
					}
					continue
				}
				if s.Command != "npx" || len(s.Args) != 2 || s.Args[1] != fmt.Sprintf("server-%d", want) || s.Env["API_KEY"] != "${API_KEY}" {
					t.Fatalf("%s is %+v", name, s)
				}
			}
		})
	}
}
