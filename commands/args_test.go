package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

func TestParsePairs(t *testing.T) {
	pairs, err := parsePairs([]string{"q=bug", "n:=5", "empty=", "eq=a=b", "a:b=c", `obj:={"k":[1]}`})
	if err != nil {
		t.Fatal(err)
	}
	want := []argPair{
		{key: "q", raw: "bug"},
		{key: "n", raw: "5", typed: true},
		{key: "empty", raw: ""},
		{key: "eq", raw: "a=b"},
		{key: "a:b", raw: "c"},
		{key: "obj", raw: `{"k":[1]}`, typed: true},
	}
	if len(pairs) != len(want) {
		t.Fatalf("got %d pairs, want %d", len(pairs), len(want))
	}
	for i := range want {
		if pairs[i] != want[i] {
			t.Errorf("pair %d = %+v, want %+v", i, pairs[i], want[i])
		}
	}
	for word, msg := range map[string]string{
		"novalue": `invalid argument "novalue": expected key=value or key:=json`,
		"=x":      `invalid argument "=x": expected key=value or key:=json`,
		":=1":     `invalid argument ":=1": expected key=value or key:=json`,
		"n:=5x":   `invalid JSON for argument "n": line 1, column 2: unexpected data after the JSON value`,
		"s:=bug":  `invalid JSON for argument "s": line 1, column 1: invalid character 'b' looking for beginning of value`,
		"e:=":     `invalid JSON for argument "e": empty input`,
	} {
		_, err := parsePairs([]string{word})
		if fail.CodeOf(err) != fail.Usage || err.Error() != msg {
			t.Errorf("parsePairs(%q) = %v, want usage error %q", word, err, msg)
		}
	}
}

func TestReadArgsFlag(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"from":"file"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		`{"a":1,"b":[true]}`: `{"a":1,"b":[true]}`,
		"@a.json":            `{"from":"file"}`,
		"-":                  `{"from":"stdin"}`,
		"":                   `null`,
	} {
		got, err := readArgsFlag(in, strings.NewReader(`{"from":"stdin"}`), dir)
		if err != nil {
			t.Fatalf("readArgsFlag(%q): %v", in, err)
		}
		if b, _ := json.Marshal(got); string(b) != want {
			t.Errorf("readArgsFlag(%q) = %s, want %s", in, b, want)
		}
	}
	for in, msg := range map[string]string{
		`{"a":`:      "invalid JSON in --args: line 1, column 6: unexpected end of JSON input",
		`[1,2]`:      "--args must be a JSON object",
		`"str"`:      "--args must be a JSON object",
		`null`:       "--args must be a JSON object, not null",
		`{} {}`:      "invalid JSON in --args: line 1, column 5: unexpected data after the JSON value",
		"@nope.json": "cannot read --args file: open " + filepath.Join(dir, "nope.json") + ": no such file or directory",
	} {
		_, err := readArgsFlag(in, strings.NewReader(""), dir)
		if err == nil || err.Error() != msg {
			t.Errorf("readArgsFlag(%q) error = %v, want %q", in, err, msg)
		}
	}
	if _, err := readArgsFlag("-", strings.NewReader("  "), dir); err == nil || err.Error() != "invalid JSON in --args from stdin: empty input" {
		t.Errorf("empty stdin: %v", err)
	}
}

func TestMergeArgs(t *testing.T) {
	pairs, err := parsePairs([]string{"n=5", "f=2.5", "b=true", "s=5", "free=7", "bad=abc", "typed:=\"x\"", "base=over"})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string][]string{
		"n": {"integer"}, "f": {"number"}, "b": {"boolean"}, "s": {"string"},
		"bad": {"integer"}, "typed": {"integer"},
	}
	got := mergeArgs(map[string]any{"base": "b", "keep": 1.0}, pairs, types)
	b, _ := json.Marshal(got)
	want := `{"b":true,"bad":"abc","base":"over","f":2.5,"free":"7","keep":1,"n":5,"s":"5","typed":"x"}`
	if string(b) != want {
		t.Fatalf("mergeArgs = %s\nwant        %s", b, want)
	}
	// A union type that allows strings keeps the text.
	if v := coerce("5", []string{"integer", "string"}); v != "5" {
		t.Errorf("coerce with string in union = %#v", v)
	}
	if v := coerce("1e400", []string{"number"}); v != "1e400" {
		t.Errorf("coerce out-of-range number = %#v, want the string", v)
	}
}
