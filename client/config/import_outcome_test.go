package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// Run imports FILE (or with a dry run previews it), noting each name kept;
// the outcome is the JSON 'mcpc config import' prints, lists and never
// null, and its verdict is ImportVerdict's.
func TestImportRun(t *testing.T) {
	im, notes := testImport(t)
	im.Arg = filepath.Join(filepath.Dir(im.Target.Path), "other.json")
	if err := os.WriteFile(im.Arg, []byte(`{"mcpServers": {"a": {"command": "a"}, "b": {"type": "websocket", "url": "https://x.example"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	dry, err := im.Run(t.Context(), true)
	if err != nil || !strings.Contains(string(dry.Preview), `"command": "a"`) || dry.Verdict() != nil {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	if _, err := os.Stat(im.Target.Path); !os.IsNotExist(err) {
		t.Fatalf("a dry run wrote %s: %v", im.Target.Path, err)
	}
	for i, want := range []string{
		`{"file":"` + im.Target.Path + `","imported":["a"],"kept":[],"skipped":[{"name":"b","where":"` + im.Arg + `:1","reason":"type \"websocket\" is a transport mcpc does not speak"}]}`,
		`{"file":"` + im.Target.Path + `","imported":[],"kept":["a"],"skipped":[{"name":"b","where":"` + im.Arg + `:1","reason":"type \"websocket\" is a transport mcpc does not speak"}]}`,
	} {
		*notes = nil
		res, err := im.Run(t.Context(), false)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := json.Marshal(res); string(got) != want {
			t.Errorf("run %d:\n%s\nwant\n%s", i, got, want)
		}
		if i == 1 {
			keptNote := `kept "a": ` + im.Target.Path + " has a server of that name (--overwrite replaces it)"
			if len(*notes) == 0 || (*notes)[len(*notes)-1] != keptNote {
				t.Errorf("notes %q, want the last %q", *notes, keptNote)
			}
			if err := res.Verdict(); err == nil || err.Error() != "nothing imported: 1 server(s) could not be" {
				t.Errorf("only kept and skipped: %v, want nothing imported", err)
			}
		}
	}
}

// SetArgs takes at most one APP or FILE, --only as comma-separated
// names, and --from only with a FILE and for an app mcpc reads.
func TestImportSetArgs(t *testing.T) {
	im := &Import{}
	if err := im.SetArgs([]string{"cursor"}, []string{"a, b", ",", "c"}); err != nil || im.Arg != "cursor" || strings.Join(im.Only, "|") != "a|b|c" {
		t.Errorf("SetArgs = %v %+v", err, im)
	}
	for _, tc := range []struct {
		from       string
		args, only []string
		want       string
	}{
		{args: []string{"a", "b"}, want: `unexpected argument "b"`},
		{only: []string{"x"}, want: "--only and --from need an APP or FILE"},
		{from: "cursor", want: "--only and --from need an APP or FILE"},
		{from: "emacs", args: []string{"f.json"}, want: `unknown --from app "emacs"`},
	} {
		err := (&Import{From: tc.from}).SetArgs(tc.args, tc.only)
		if err == nil || err.Error() != tc.want || fail.CodeOf(err) != fail.Usage {
			t.Errorf("%+v: %v, want usage error %q", tc, err, tc.want)
		}
	}
}
