package config

import (
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// hostileShapes are files made to exhaust a decoder: each 400 KB–2 MB.
var hostileShapes = []struct {
	name, app, data, want string
}{
	{"deep arrays", AppCodex, "[mcp_servers.a]\ncommand = \"x\"\nargs = " + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + "\n",
		"f:3:72: nested more than 64 levels deep; no config file needs that: fix or remove the file"},
	{"deep inline tables", AppCodex, "[mcp_servers.a]\ncommand = \"x\"\nenv = " + strings.Repeat("{a=", 100000) + "1" + strings.Repeat("}", 100000) + "\n",
		"f:3:199: nested more than 64 levels deep; no config file needs that: fix or remove the file"},
	{"dotted key", AppCodex, "[mcp_servers.a]\ncommand = \"x\"\n" + strings.Repeat("a.", 200000) + "a = 1\n",
		"f:3:128: a dotted key of more than 64 parts; no config file needs that: fix or remove the file"},
	{"dotted header", AppCodex, "[" + strings.Repeat("'a'.", 200000) + "a]\n",
		"f:1:253: a dotted key of more than 64 parts; no config file needs that: fix or remove the file"},
	{"long key", AppCodex, "[mcp_servers.a]\ncommand = \"x\"\n" + strings.Repeat("k", 2<<20) + " = 1\n",
		"f:3:1: a key of more than 1024 bytes; no config file needs that: fix or remove the file"},
	{"long quoted header", AppCodex, "[mcp_servers.a.\"" + strings.Repeat("k", 2<<20) + "\"]\n",
		"f:1:2: a key of more than 1024 bytes; no config file needs that: fix or remove the file"},
	{"deep JSON", AppClaudeCode, `{"mcpServers": {"a": {"args": ` + strings.Repeat("[", 500000) + strings.Repeat("]", 500000) + "}}}",
		"f:1:92: nested more than 64 levels deep; no config file needs that: fix or remove the file"},
	{"long JSON key", AppCursor, `{"mcpServers": {"a": {"` + strings.Repeat("k", 2<<20) + `": 1}}}`,
		"f:1:23: a key of more than 1024 bytes; no config file needs that: fix or remove the file"},
}

// TestImportHostileShapes: each is refused at its place, naming the limit,
// before the decoder runs, in a few times the file's size of memory.
func TestImportHostileShapes(t *testing.T) {
	for _, tc := range hostileShapes {
		t.Run(tc.name, func(t *testing.T) {
			var f *ImportFile
			n := memtest.Allocated(func() { f = ParseImport(ImportSource{App: tc.app, Path: "f"}, []byte(tc.data)) })
			if f.Err == nil || f.Err.Error() != tc.want {
				t.Fatalf("error %v, want %s", f.Err, tc.want)
			}
			if fail.CodeOf(f.Err) != fail.Config {
				t.Fatalf("code %v, want config", fail.CodeOf(f.Err))
			}
			if limit := uint64(4*len(tc.data)) + 1<<20; n > limit {
				t.Fatalf("allocated %d bytes for a %d-byte file (limit %d)", n, len(tc.data), limit)
			}
		})
	}
	// mcpc's own file: the same bounds.
	f := ParseFile("f", SourceProject, []byte(hostileShapes[6].data))
	if f.Err == nil || f.Err.Error() != hostileShapes[6].want {
		t.Fatalf("ParseFile: %v", f.Err)
	}
}

// TestImportLongName: a server's name of 2 MiB skips that entry, named
// by its first 40 bytes and its length, not the file: the others are
// read. Its cost is linear in the file (the decoders copy the name a few
// times), not refused as a hostile shape is.
func TestImportLongName(t *testing.T) {
	long := strings.Repeat("k", 2<<20)
	for _, tc := range []struct{ app, data string }{
		{AppCursor, `{"mcpServers": {"good": {"command": "x"}, "` + long + `": {"command": "x"}}}`},
		{AppCodex, "[mcp_servers.good]\ncommand = \"x\"\n[mcp_servers.\"" + long + "\"]\ncommand = \"x\"\n"},
	} {
		var f *ImportFile
		n := memtest.Allocated(func() { f = ParseImport(ImportSource{App: tc.app, Path: "f"}, []byte(tc.data)) })
		if f.Err != nil || len(f.Entries) != 2 {
			t.Fatalf("%s: %v, %d entries; want 2", tc.app, f.Err, len(f.Entries))
		}
		if e := f.Entries[0]; e.Name != "good" || e.Skip != "" {
			t.Errorf("%s: first entry %q skipped: %s", tc.app, e.Name, e.Skip)
		}
		want := strings.Repeat("k", 40) + "…"
		if e := f.Entries[1]; e.Name != want || e.Skip != "a name of 2097152 bytes: a server's name is at most 128" {
			t.Errorf("%s: long entry %q: %q", tc.app, e.Name, e.Skip)
		}
		if limit := uint64(20*len(tc.data)) + 1<<20; n > limit {
			t.Errorf("%s: allocated %d bytes for a %d-byte file (limit %d)", tc.app, n, len(tc.data), limit)
		}
	}
}

// TestShapeLetsThrough: what real files hold is not refused: brackets,
// dots and quotes in strings and comments, floats and dates, long values,
// multi-line strings, 64 levels.
func TestShapeLetsThrough(t *testing.T) {
	long := strings.Repeat("v", 5000)
	for _, tc := range []struct{ data string }{
		{"[mcp_servers.a] # [[[[ a.b.c\ncommand = \"x[[[{{{\"\nargs = ['" + strings.Repeat("[.", 100) + "', \"" + long + "\"]\nenv = { A = \"" + long + "\" }\nx = 1.5e3\nd = 1979-05-27T07:32:00.999\n"},
		{"s = \"\"\"\n" + strings.Repeat("[a.", 100) + "\"\"\"\"\nt = '''" + strings.Repeat("{", 100) + "'''\n[mcp_servers.\"a.b\".env]\nk = 'C:\\x'\n"},
		{strings.Repeat("a.", 62) + "a = 1\n"},
		{"x = " + strings.Repeat("[", 64) + strings.Repeat("]", 64) + "\n"},
		{`{"mcpServers": {"a": {"command": "x", "args": ["` + long + `", "]]]]}}}:"]}}} // {{{{` + "\n/* [[[[ */}"},
		{strings.Repeat(`{"a":`, 64) + "1" + strings.Repeat("}", 64)},
	} {
		if err := checkShape("f", []byte(tc.data), !strings.HasPrefix(tc.data, "{")); err != nil {
			t.Errorf("%.60q: %v", tc.data, err)
		}
	}
}

// FuzzImportShape: the check before decoding, then the decoding, never
// panic, and a file the check refuses is a located config error.
func FuzzImportShape(f *testing.F) {
	for _, seed := range []string{
		"[mcp_servers.a]\ncommand = \"x\"\nargs = [[[\"y\"]]]\nenv = {A = {B = 1}}\n",
		"a.b.c.d = 1\n[x.'y'.\"z\"]\ns = \"\"\"a\n\"\"\"\n# c\n",
		`{"mcpServers": {"a": {"command": "x", "args": [[["y"]]]}}} // c`,
		strings.Repeat("[", 70),
		strings.Repeat("a.", 70) + "a=1",
	} {
		f.Add([]byte(seed), true)
		f.Add([]byte(seed), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, isTOML bool) {
		app := AppCursor
		if isTOML {
			app = AppCodex
		}
		err := checkShape("f", data, isTOML)
		file := ParseImport(ImportSource{App: app, Path: "f"}, data)
		if err != nil && (file.Err == nil || file.Err.Error() != err.Error() || !strings.HasPrefix(err.Error(), "f:")) {
			t.Fatalf("check %v, parse %v", err, file.Err)
		}
	})
}
