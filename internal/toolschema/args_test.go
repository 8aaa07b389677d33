package toolschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

func TestParsePairs(t *testing.T) {
	pairs, err := ParsePairs([]string{"q=bug", "n:=5", "empty=", "eq=a=b", "a:b=c", `obj:={"k":[1]}`})
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{
		{Key: "q", Raw: "bug"},
		{Key: "n", Raw: "5", Typed: true},
		{Key: "empty", Raw: ""},
		{Key: "eq", Raw: "a=b"},
		{Key: "a:b", Raw: "c"},
		{Key: "obj", Raw: `{"k":[1]}`, Typed: true},
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
		_, err := ParsePairs([]string{word})
		if fail.CodeOf(err) != fail.Usage || err.Error() != msg {
			t.Errorf("ParsePairs(%q) = %v, want usage error %q", word, err, msg)
		}
	}
}

func TestReadArgs(t *testing.T) {
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
		got, err := ReadArgs(in, strings.NewReader(`{"from":"stdin"}`), dir)
		if err != nil {
			t.Fatalf("ReadArgs(%q): %v", in, err)
		}
		if b, _ := json.Marshal(got); string(b) != want {
			t.Errorf("ReadArgs(%q) = %s, want %s", in, b, want)
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
		_, err := ReadArgs(in, strings.NewReader(""), dir)
		if err == nil || err.Error() != msg {
			t.Errorf("ReadArgs(%q) error = %v, want %q", in, err, msg)
		}
	}
	if _, err := ReadArgs("-", strings.NewReader("  "), dir); err == nil || err.Error() != "invalid JSON in --args from stdin: empty input" {
		t.Errorf("empty stdin: %v", err)
	}
}

func TestMerge(t *testing.T) {
	pairs, err := ParsePairs([]string{"n=5", "f=2.5", "b=true", "s=5", "free=7", "bad=abc", "typed:=\"x\"", "base=over"})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string][]string{
		"n": {"integer"}, "f": {"number"}, "b": {"boolean"}, "s": {"string"},
		"bad": {"integer"}, "typed": {"integer"},
	}
	got := Merge(map[string]any{"base": "b", "keep": 1.0}, pairs, types)
	b, _ := json.Marshal(got)
	want := `{"b":true,"bad":"abc","base":"over","f":2.5,"free":"7","keep":1,"n":5,"s":"5","typed":"x"}`
	if string(b) != want {
		t.Fatalf("Merge = %s\nwant        %s", b, want)
	}
	// A union type that allows strings keeps the text.
	if v := Coerce("5", []string{"integer", "string"}); v != "5" {
		t.Errorf("Coerce with string in union = %#v", v)
	}
	if v := Coerce("1e400", []string{"number"}); v != "1e400" {
		t.Errorf("Coerce out-of-range number = %#v, want the string", v)
	}
}

// PromptArgs: strings only from --args, words win, key:=json sends a
// JSON string as itself and any other JSON as its text.
func TestPromptArgs(t *testing.T) {
	pairs, err := ParsePairs([]string{"city=Paris", "s:=\"x\"", "n:=5", "o:={\"a\": 1}", "base=over"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := PromptArgs(map[string]any{"base": "b", "keep": "k"}, pairs)
	b, _ := json.Marshal(got)
	want := `{"base":"over","city":"Paris","keep":"k","n":"5","o":"{\"a\": 1}","s":"x"}`
	if err != nil || string(b) != want {
		t.Fatalf("PromptArgs = %s, %v\nwant         %s", b, err, want)
	}
	_, err = PromptArgs(map[string]any{"n": json.Number("5")}, nil)
	if fail.CodeOf(err) != fail.Usage || err.Error() != `--args: value of "n" must be a string` {
		t.Errorf("a number in --args: %v (code %v)", err, fail.CodeOf(err))
	}
}

func TestParsePairsFileValues(t *testing.T) {
	pairs, err := ParsePairs([]string{"body=@notes.txt", "cfg:=@c.json", "in=@-", "at=@@handle", "mail=a@b", "two=@@@x"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{
		{Key: "body", File: "notes.txt"},
		{Key: "cfg", Typed: true, File: "c.json"},
		{Key: "in", File: "-"},
		{Key: "at", Raw: "@handle"},
		{Key: "mail", Raw: "a@b"},
		{Key: "two", Raw: "@@x"},
	}
	if len(pairs) != len(want) {
		t.Fatalf("got %d pairs, want %d", len(pairs), len(want))
	}
	for i := range want {
		if pairs[i] != want[i] {
			t.Errorf("pair %d = %+v, want %+v", i, pairs[i], want[i])
		}
	}
	for words, msg := range map[string]string{
		"a=@":           `argument "a": @ needs a file name`,
		"a:=@":          `argument "a": @ needs a file name`,
		"a=@- b:=@-":    `arguments "a" and "b" both read standard input (@-); it can be read once`,
		"a=@- x=1 a=@-": `arguments "a" and "a" both read standard input (@-); it can be read once`,
		// @@ escapes for key:= too, and @x is no JSON.
		"lit:=@@x": `invalid JSON for argument "lit": line 1, column 1: invalid character '@' looking for beginning of value`,
	} {
		_, err := ParsePairs(strings.Fields(words))
		if fail.CodeOf(err) != fail.Usage || err.Error() != msg {
			t.Errorf("ParsePairs(%q) = %v, want usage error %q", words, err, msg)
		}
	}
}

func TestReadPairFiles(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"n.txt": "5\n", "v.json": ` {"k": [1, 2]} `, "bad.json": "[1,\n 2,,]", "bin": "\xff"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pairs, err := ParsePairs([]string{"n=@n.txt", "v:=@v.json", "s=@-", "m=5"})
	if err != nil {
		t.Fatal(err)
	}
	by, err := ReadPairFiles(pairs, "", strings.NewReader("from stdin"), dir)
	if err != nil || by != "s=@-" {
		t.Fatalf("ReadPairFiles = %q, %v", by, err)
	}
	// n is an integer in the schema, yet a file's text is sent as it is;
	// m=5 is typed as before.
	got := Merge(nil, pairs, map[string][]string{"n": {"integer"}, "m": {"integer"}})
	b, _ := json.Marshal(got)
	if want := `{"m":5,"n":"5\n","s":"from stdin","v":{"k":[1,2]}}`; string(b) != want {
		t.Errorf("Merge = %s\nwant        %s", b, want)
	}

	for words, msg := range map[string]string{
		"v:=@bad.json": `invalid JSON in file bad.json of argument "v": line 2, column 4: invalid character ',' looking for beginning of value`,
		"v=@bin":       `file bin of argument "v" is not UTF-8 text`,
		"v=@nope":      `cannot read argument "v" file: open ` + filepath.Join(dir, "nope") + `: no such file or directory`,
		"v=@.":         `cannot read argument "v" file: read ` + dir + `: not a regular file (a directory)`,
		"v:=@-":        `invalid JSON in stdin of argument "v": empty input`,
	} {
		pairs, err := ParsePairs(strings.Fields(words))
		if err != nil {
			t.Fatal(err)
		}
		_, err = ReadPairFiles(pairs, "", strings.NewReader(""), dir)
		if fail.CodeOf(err) != fail.Usage || err.Error() != msg {
			t.Errorf("ReadPairFiles(%q) = %v, want usage error %q", words, err, msg)
		}
	}
	pairs, _ = ParsePairs([]string{"s=@-"})
	if _, err := ReadPairFiles(pairs, "--args -", strings.NewReader("x"), dir); err == nil || err.Error() != "s=@- and --args - cannot both read standard input" {
		t.Errorf("s=@- with --args -: %v", err)
	}
}

func TestWordReadsStdin(t *testing.T) {
	for w, want := range map[string]bool{"a=@-": true, "a:=@-": true, "a=@--": false, "a=@@-": false, "=@-": false, "https://h/?q=@-": false, "a=-": false} {
		if got := WordReadsStdin(w); got != want {
			t.Errorf("WordReadsStdin(%q) = %v, want %v", w, got, want)
		}
	}
}
