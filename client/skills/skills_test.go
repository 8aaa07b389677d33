package skills

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// fake serves one skill listing and the files behind it, and records
// every request.
type fake struct {
	ext      string // the declared settings; "" for none
	listing  []string
	files    map[string]string
	requests []string
}

func (f *fake) Label() string { return `server "fake"` }

func (f *fake) Extension(string) gjson.Result {
	if f.ext == "" {
		return gjson.Result{}
	}
	return gjson.Parse(f.ext)
}

func (f *fake) Request(_ context.Context, method, _ string, p map[string]any) (json.RawMessage, error) {
	f.requests = append(f.requests, fmt.Sprint(method, " ", p["cursor"], p["uri"]))
	switch method {
	case "skills/list":
		i := 0
		if c, ok := p["cursor"].(string); ok {
			fmt.Sscan(c, &i)
		}
		next := ""
		if i+1 < len(f.listing) {
			next = fmt.Sprintf(`,"nextCursor":"%d"`, i+1)
		}
		return json.RawMessage(`{"skills":[` + f.listing[i] + `]` + next + `}`), nil
	case "resources/directory/read":
		var out []string
		dir := p["uri"].(string) + "/"
		for uri := range f.files {
			if rest, ok := strings.CutPrefix(uri, dir); ok {
				if sub, _, deeper := strings.Cut(rest, "/"); deeper {
					if s := fmt.Sprintf(`{"uri":%q,"mimeType":"inode/directory"}`, dir+sub); !slices.Contains(out, s) {
						out = append(out, s)
					}
					continue
				}
				out = append(out, fmt.Sprintf(`{"uri":%q}`, uri))
			}
		}
		slices.Sort(out)
		return json.RawMessage(`{"resources":[` + strings.Join(out, ",") + `]}`), nil
	}
	return nil, fmt.Errorf("unknown method %s", method)
}

func (f *fake) Explain(_ context.Context, what string, err error) error {
	return fmt.Errorf("%s %s: %w", what, f.Label(), err)
}

func (f *fake) Read(_ context.Context, uri string, limit int64) (json.RawMessage, error) {
	f.requests = append(f.requests, "read "+uri)
	text, ok := f.files[uri]
	if !ok {
		return nil, fmt.Errorf("no such resource %s", uri)
	}
	b, _ := json.Marshal(map[string]any{"contents": []any{map[string]any{"uri": uri, "text": text}}})
	if int64(len(b)) > limit {
		return nil, ErrOverLimit
	}
	return b, nil
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

const skillMD = "---\nname: pdf\ndescription: Work with PDFs\nmetadata:\n  version: 2\n---\n\nBody.\n"

// entry writes a skill entry listing files (uri → content) as they are.
func entry(name string, fm string, files ...string) string {
	var res []string
	for i := 0; i+1 < len(files); i += 2 {
		res = append(res, fmt.Sprintf(`{"uri":%q,"digest":%q,"size":%d}`, files[i], digest(files[i+1]), len(files[i+1])))
	}
	return fmt.Sprintf(`{"uri":"skill://%s/SKILL.md","frontmatter":%s,"resources":[%s]}`, name, fm, strings.Join(res, ","))
}

const pdfFM = `{"name":"pdf","description":"Work with PDFs","metadata":{"version":2}}`

func TestGetVerifiesInOrderAndStopsAtAMismatch(t *testing.T) {
	good := entry("pdf", pdfFM, "skill://pdf/SKILL.md", skillMD, "skill://pdf/a.md", "A", "skill://pdf/b.md", "B")
	for _, tc := range []struct {
		name    string
		files   map[string]string
		entry   string
		all     bool
		wantErr string
		reads   []string
	}{
		{"SKILL.md alone", nil, good, false, "", []string{"read skill://pdf/SKILL.md"}},
		{"every file", nil, good, true, "", []string{"read skill://pdf/SKILL.md", "read skill://pdf/a.md", "read skill://pdf/b.md"}},
		{"digest", map[string]string{"skill://pdf/SKILL.md": strings.Replace(skillMD, "Body", "Evil", 1)}, good, true,
			"SKILL.md has digest sha256:", []string{"read skill://pdf/SKILL.md"}},
		{"size", map[string]string{"skill://pdf/SKILL.md": skillMD + "x"}, good, true,
			fmt.Sprintf("SKILL.md is %d bytes, the listing says %d", len(skillMD)+1, len(skillMD)), []string{"read skill://pdf/SKILL.md"}},
		{"a later file", map[string]string{"skill://pdf/a.md": "a"}, good, true,
			"a.md has digest", []string{"read skill://pdf/SKILL.md", "read skill://pdf/a.md"}},
		{"frontmatter", nil, entry("pdf", `{"name":"pdf","description":"Other","metadata":{"version":2}}`, "skill://pdf/SKILL.md", skillMD), false,
			`SKILL.md has frontmatter field "description" "Work with PDFs", the listing says "Other"`, []string{"read skill://pdf/SKILL.md"}},
		{"frontmatter number", nil, entry("pdf", `{"name":"pdf","description":"Work with PDFs","metadata":{"version":"2"}}`, "skill://pdf/SKILL.md", skillMD), false,
			`field "metadata" {"version":2}, the listing says {"version":"2"}`, []string{"read skill://pdf/SKILL.md"}},
		{"frontmatter field missing", nil, entry("pdf", `{"name":"pdf","description":"Work with PDFs","metadata":{"version":2},"license":"MIT"}`, "skill://pdf/SKILL.md", skillMD), false,
			`SKILL.md has no frontmatter field "license", the listing has "MIT"`, []string{"read skill://pdf/SKILL.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{ext: `{}`, listing: []string{`{"uri":"skill://other/SKILL.md","frontmatter":{"name":"other"},"resources":[]}`, tc.entry},
				files: map[string]string{"skill://pdf/SKILL.md": skillMD, "skill://pdf/a.md": "A", "skill://pdf/b.md": "B"}}
			for k, v := range tc.files {
				f.files[k] = v
			}
			e, got, err := Get(t.Context(), f, "pdf", tc.all, 1<<20)
			var reads []string
			for _, r := range f.requests {
				if strings.HasPrefix(r, "read ") {
					reads = append(reads, r)
				}
			}
			if !slices.Equal(reads, tc.reads) {
				t.Errorf("reads = %q, want %q", reads, tc.reads)
			}
			if tc.wantErr == "" {
				if err != nil || e.Name != "pdf" || len(got) != len(tc.reads) || string(got[0].Data) != skillMD {
					t.Fatalf("Get = %v, %d files, %v", e, len(got), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || fail.CodeOf(err) != fail.Protocol {
				t.Fatalf("err = %v (%s), want one with %q", err, fail.CodeOf(err), tc.wantErr)
			}
		})
	}
}

func TestParseEntryRefusesBeforeAnyRead(t *testing.T) {
	md := `{"uri":"skill://s/SKILL.md","digest":"` + digest("x") + `","size":1}`
	file := func(uri string) string { return `{"uri":"` + uri + `","digest":"` + digest("") + `","size":0}` }
	for _, tc := range []struct{ raw, want string }{
		{`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"s"},"resources":[` + md + `,{"uri":"skill://s/../x","digest":"` + digest("") + `","size":0}]}`, `outside its directory: "skill://s/../x"`},
		{`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"s"},"resources":[` + md + `,{"uri":"skill://s//etc/passwd","digest":"` + digest("") + `","size":0}]}`, "outside its directory"},
		{`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"s"},"resources":[` + md + `,{"uri":"skill://t/x","digest":"` + digest("") + `","size":0}]}`, "outside its directory"},
		{`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"s"},"resources":[` + md + `,{"uri":"skill://s/a\\b","digest":"` + digest("") + `","size":0}]}`, "outside its directory"},
		{`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"s"},"resources":[{"uri":"skill://s/SKILL.md","digest":"sha256:00","size":1}]}`, "no sha256:HEX digest"},
		{`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"s"},"resources":[{"uri":"skill://s/SKILL.md","digest":"` + digest("x") + `","size":16777217}]}`, "more than 16777216 bytes"},
		{`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"s"}}`, "neither a list of files"},
		{`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"t"},"resources":[]}`, "its path must end in its name"},
		{`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"s"},"resources":[]}`, "do not include its SKILL.md"},
		{`{"uri":"skill://s/README.md","frontmatter":{"name":"s"},"resources":[]}`, "not the URI of a SKILL.md"},
		// A file and a directory of one name cannot both be written, in
		// either order, letter case aside; nor one path twice.
		{`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"s"},"resources":[` + md + `,` + file("skill://s/a") + `,` + file("skill://s/a/b") + `]}`,
			`lists a skill skill://s/SKILL.md whose file skill://s/a is also the directory of skill://s/a/b (letter case aside): both cannot be written`},
		{`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"s"},"resources":[` + md + `,` + file("skill://s/a/b/c") + `,` + file("skill://s/a/b") + `]}`,
			`lists a skill skill://s/SKILL.md whose file skill://s/a/b is also the directory of skill://s/a/b/c (letter case aside): both cannot be written`},
		{`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"s"},"resources":[` + md + `,` + file("skill://s/A") + `,` + file("skill://s/a/b") + `]}`,
			`whose file skill://s/A is also the directory of skill://s/a/b (letter case aside)`},
		{`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"s"},"resources":[` + md + `,` + file("skill://s/skill.md/x") + `]}`,
			`whose file skill://s/SKILL.md is also the directory of skill://s/skill.md/x (letter case aside)`},
		{`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"s"},"resources":[` + md + `,` + file("skill://s/Skill.md") + `]}`,
			`that lists skill://s/Skill.md twice (letter case aside)`},
	} {
		_, err := ParseEntry("x", json.RawMessage(tc.raw))
		if err == nil || !strings.Contains(err.Error(), tc.want) || fail.CodeOf(err) != fail.Protocol {
			t.Errorf("ParseEntry(%s) = %v, want %q", tc.raw, err, tc.want)
		}
	}
	files := []string{md}
	for i := range MaxFiles {
		files = append(files, fmt.Sprintf(`{"uri":"skill://s/f%d","digest":"%s","size":0}`, i, digest("")))
	}
	_, err := ParseEntry("x", json.RawMessage(`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"s"},"resources":[`+strings.Join(files, ",")+`]}`))
	if err == nil || !strings.Contains(err.Error(), "of 513 files, over the 512") {
		t.Errorf("513 files: %v", err)
	}
	_, err = ParseEntry("x", json.RawMessage(`{"uri":"skill://s/SKILL.md","frontmatter":{"name":"s"},"resources":[`+strings.Join(files[:MaxFiles], ",")+`]}`))
	if err != nil {
		t.Errorf("512 files: %v", err)
	}
}

func TestFind(t *testing.T) {
	dup := func(p string) string {
		return `{"uri":"skill://` + p + `/SKILL.md","frontmatter":{"name":"dup"},"resources":[{"uri":"skill://` + p + `/SKILL.md","digest":"` + digest("") + `","size":0}]}`
	}
	f := &fake{ext: `{}`, listing: []string{dup("a/dup") + "," + dup("b/dup")}}
	pages, err := List(t.Context(), f, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Find(t.Context(), f, pages, "dup"); err == nil || fail.CodeOf(err) != fail.Usage || !strings.Contains(fail.As(err).Hint, "a/dup, b/dup") {
		t.Errorf("ambiguous: %v", err)
	}
	if e, err := Find(t.Context(), f, pages, "b/dup"); err != nil || e.URI != "skill://b/dup/SKILL.md" {
		t.Errorf("by path: %v %v", e, err)
	}
	if _, err := Find(t.Context(), f, pages, "dupe"); err == nil || fail.CodeOf(err) != fail.Rejected || !strings.Contains(fail.As(err).Hint, `did you mean "dup"?`) {
		t.Errorf("unknown: %v", err)
	}
	if _, err := List(t.Context(), &fake{}, 1<<20); err == nil || fail.CodeOf(err) != fail.Rejected {
		t.Errorf("undeclared: %v", err)
	}
}

func TestFrontmatter(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"---\nname: a\ndate: 2024-01-02\nn: 1.5\ntags: [x, y]\n---\nbody", `{"date":"2024-01-02","n":1.5,"name":"a","tags":["x","y"]}`},
		{"\ufeff---\r\nname: a\r\n---\r\n", `{"name":"a"}`},
		{"---\n---\n", `{}`},
		{"name: a\n", "does not begin with YAML frontmatter"},
		{"---\nname: a\n", "never ends"},
		{"---\n- a\n---\n", "not a mapping"},
		{"---\na: &x [1]\nb: *x\n---\n", "has frontmatter with a YAML alias (*x, line 3), which mcpc does not expand"},
		{"---\na: &x {k: 1}\nb:\n  <<: *x\n---\n", "has frontmatter with a YAML alias (*x, line 4)"},
		{"---\na: &x 1\n---\n", `{"a":1}`}, // an anchor alone is harmless
		{"---\n" + strings.Repeat("a: b\n", MaxFrontmatter/5-1) + "---\n", `{"a":"b"}`},
		{"---\n" + strings.Repeat("a: b\n", MaxFrontmatter/5+1) + "---\n", "has frontmatter of more than 64KiB (no closing --- line within 65536 bytes)"},
	} {
		m, err := Frontmatter([]byte(tc.in))
		got := fmt.Sprint(err)
		if err == nil {
			b, _ := json.Marshal(m)
			got = string(b)
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("Frontmatter(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestDynamicNeedsDirectoryRead(t *testing.T) {
	files := map[string]string{"skill://d/SKILL.md": "---\nname: d\n---\n", "skill://d/x/y.md": "Y"}
	listing := []string{`{"uri":"skill://d/SKILL.md","frontmatter":{"name":"d"},"resources":"dynamic"}`}
	f := &fake{ext: `{}`, listing: listing, files: files}
	if _, _, err := Get(t.Context(), f, "d", true, 1<<20); err == nil || !strings.Contains(err.Error(), "served dynamically") {
		t.Errorf("without directoryRead: %v", err)
	}
	if slices.ContainsFunc(f.requests, func(r string) bool {
		return strings.HasPrefix(r, "resources/directory/read") || strings.HasPrefix(r, "read ")
	}) {
		t.Errorf("requests = %q, want no directory read and no file read", f.requests)
	}
	f = &fake{ext: `{"directoryRead":true}`, listing: listing, files: files}
	_, got, err := Get(t.Context(), f, "d", true, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, g := range got {
		paths = append(paths, g.Path)
	}
	if !slices.Equal(paths, []string{"SKILL.md", "x/y.md"}) {
		t.Errorf("paths = %q", paths)
	}
}

func TestDynamicFileAndDirectoryOfOneName(t *testing.T) {
	files := map[string]string{"skill://d/SKILL.md": "---\nname: d\n---\n", "skill://d/a": "A", "skill://d/a/b": "B"}
	f := &fake{ext: `{"directoryRead":true}`, files: files,
		listing: []string{`{"uri":"skill://d/SKILL.md","frontmatter":{"name":"d"},"resources":"dynamic"}`}}
	_, _, err := Get(t.Context(), f, "d", true, 1<<20)
	want := `server "fake" serves a skill skill://d/SKILL.md whose file skill://d/a is also the directory of skill://d/a/b (letter case aside): both cannot be written`
	if err == nil || err.Error() != want || fail.CodeOf(err) != fail.Protocol {
		t.Errorf("err = %v (%s), want %q", err, fail.CodeOf(err), want)
	}
}
