package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// testImport is an import into a user file in a fresh directory, its
// notes collected.
func testImport(t *testing.T, only ...string) (*Import, *[]string) {
	dir := t.TempDir()
	notes := &[]string{}
	return &Import{
		Only:   only,
		Target: ConfigEdit{Path: filepath.Join(dir, "config.json"), Source: SourceUser, Dirs: Dirs{State: filepath.Join(dir, "state")}},
		Env:    ImportEnv{Home: dir, Cwd: dir, Getenv: func(string) string { return "" }},
		Note:   func(format string, args ...any) { *notes = append(*notes, fmt.Sprintf(format, args...)) },
	}, notes
}

func importFiles(texts ...string) []*ImportFile {
	var files []*ImportFile
	for i, text := range texts {
		files = append(files, ParseImport(ImportSource{App: AppCursor, Path: fmt.Sprintf("f%d.json", i), Scope: "user"}, []byte(text)))
	}
	return files
}

func names(ps []*Prepared) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// A later file's entry replaces an earlier one in its place, a disabled
// one is left out unless named, an unusable one fails at its place, and
// a broken file is skipped whole; each says so in a note.
func TestImportChoose(t *testing.T) {
	im, notes := testImport(t)
	files := importFiles(
		`{"mcpServers": {"a": {"command": "a1"}, "b": {"command": "b"}, "off": {"command": "x", "disabled": true}}}`,
		`{"mcpServers": {"a": {"command": "a2"}, "bad": {"url": "ftp://x"}}}`,
		`{`,
	)
	chosen, failed, err := im.Choose(files)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(chosen); !slices.Equal(got, []string{"b", "a"}) || chosen[1].Server.Command != "a2" {
		t.Errorf("chosen %v", got)
	}
	if len(failed) != 2 || failed[0].Name != "bad" || failed[0].Where != "f1.json:1" || failed[1].Where != "f2.json" {
		t.Errorf("failed %+v", failed)
	}
	want := []string{
		`skipped "off": it is disabled in f0.json:1 (name it with --only to import it)`,
		`"a": the entry in f1.json:1 replaces the one before it, as in cursor`,
	}
	if len(*notes) != 4 || !slices.Equal((*notes)[:2], want) || !strings.HasPrefix((*notes)[2], `skipped "bad": f1.json:1: `) || !strings.HasPrefix((*notes)[3], "skipped f2.json") {
		t.Errorf("notes:\n%s", strings.Join(*notes, "\n"))
	}

	// --only takes a disabled entry, and a name no file has is exit 3.
	im, _ = testImport(t, "off")
	if chosen, _, err := im.Choose(files[:2]); err != nil || !slices.Equal(names(chosen), []string{"off"}) {
		t.Errorf("--only off: %v %v", names(chosen), err)
	}
	im, _ = testImport(t, "zzz")
	_, _, err = im.Choose(files[:2])
	if e := fail.As(err); e == nil || e.Code != fail.Config || e.Msg != `--only: no server "zzz" in f0.json, f1.json` {
		t.Errorf("--only zzz: %v", err)
	}
}

// A dry run says what would be written and writes nothing; Write writes
// it, keeps a name the file has, and a second import finds it there.
func TestImportDryRunAndWrite(t *testing.T) {
	im, _ := testImport(t)
	chosen, _, err := im.Choose(importFiles(`{"mcpServers": {"a": {"command": "a"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, written, kept, err := im.DryRun(chosen)
	if err != nil || !slices.Equal(written, []string{"a"}) || len(kept) != 0 || !strings.Contains(string(out), `"command": "a"`) {
		t.Fatalf("DryRun = %s %v %v %v", out, written, kept, err)
	}
	if _, err := os.Stat(im.Target.Path); !os.IsNotExist(err) {
		t.Fatalf("a dry run wrote %s: %v", im.Target.Path, err)
	}
	res, err := im.Write(t.Context(), chosen)
	if err != nil || !slices.Equal(res.Written, []string{"a"}) || res.Secrets {
		t.Fatalf("Write = %+v %v", res, err)
	}
	if rows := im.Listing(); len(rows) != 0 {
		t.Errorf("listing of an empty home: %+v", rows)
	}
	res, err = im.Write(t.Context(), chosen)
	if err != nil || len(res.Written) != 0 || !slices.Equal(res.Kept, []string{"a"}) {
		t.Fatalf("second Write = %+v %v", res, err)
	}
	if !im.existing()["a"] {
		t.Error("the written name is not in the target")
	}
}

func TestImportVerdict(t *testing.T) {
	for _, tc := range []struct {
		written, kept []string
		failed        []ImportFailure
		want          string
	}{
		{[]string{"a"}, nil, []ImportFailure{{}}, ""},
		{nil, []string{"a"}, nil, ""},
		{nil, nil, nil, "no server to import"},
		{nil, []string{"a"}, []ImportFailure{{}, {}}, "nothing imported: 2 server(s) could not be"},
	} {
		err := ImportVerdict(tc.written, tc.kept, tc.failed)
		got := ""
		if e := fail.As(err); e != nil {
			got = e.Msg
			if e.Code != fail.Config {
				t.Errorf("%s: code %s", got, e.Code)
			}
		}
		if got != tc.want {
			t.Errorf("ImportVerdict(%v, %v, %d failed) = %q; want %q", tc.written, tc.kept, len(tc.failed), got, tc.want)
		}
	}
}
