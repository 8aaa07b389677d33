package format

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// write runs Write and returns stdout and notes with the overflow directory
// shown as DIR and the time and random parts of file names as "*".
func write(t *testing.T, result string, opts Options) (stdout, notes string) {
	t.Helper()
	var out, errs bytes.Buffer
	if err := Write(&out, &errs, []byte(result), opts); err != nil {
		t.Fatalf("Write: %v", err)
	}
	dir := ""
	if opts.Overflow != nil {
		dir = opts.Overflow.Dir
	}
	return normalize(out.String(), dir), normalize(errs.String(), dir)
}

var fileStamp = regexp.MustCompile(`-\d{8}T\d{6}-\d+`)

func normalize(s, dir string) string {
	if dir != "" {
		s = strings.ReplaceAll(s, dir, "DIR")
	}
	return fileStamp.ReplaceAllString(s, "-*")
}

// savedFiles returns the overflow directory's files by name pattern.
func savedFiles(t *testing.T, dir, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestWriteJSON(t *testing.T) {
	result := `{"content":[{"type":"text","text":"hi"}],"structuredContent":{"z":1,"a":[]},"isError":false}`
	got, notes := write(t, result, Options{})
	want := `{
  "content": [
    {
      "type": "text",
      "text": "hi"
    }
  ],
  "structuredContent": {
    "z": 1,
    "a": []
  },
  "isError": false
}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if notes != "" {
		t.Errorf("notes: %q", notes)
	}
}

func TestWriteQuery(t *testing.T) {
	result := `{"content":[{"type":"text","text":"hello \u001b[31mworld"}],"structuredContent":{"items":[{"name":"a"},{"name":"b"}]}}`
	tests := []struct {
		name  string
		mode  Mode
		query string
		want  string
	}{
		{"string as JSON", ModeJSON, "content.0.text", "\"hello \\u001b[31mworld\"\n"},
		{"string raw in text mode, stripped", ModeText, "content.0.text", "hello world\n"},
		{"no match is null", ModeJSON, "content.5.text", "null\n"},
		{"no match is null in text mode", ModeText, "nothing", "null\n"},
		{"array", ModeJSON, "structuredContent.items.#.name", "[\n  \"a\",\n  \"b\"\n]\n"},
		{"object in text mode", ModeText, "structuredContent.items.1", "{\n  \"name\": \"b\"\n}\n"},
		{"query filter", ModeText, `structuredContent.items.#(name=="b").name`, "b\n"},
		{"count", ModeJSON, "structuredContent.items.#", "2\n"},
		{"modifier", ModeJSON, "structuredContent.items.0.@keys", "[\n  \"name\"\n]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := write(t, result, Options{Mode: tt.mode, Kind: KindCallTool, Query: tt.query})
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWriteQueryErrors(t *testing.T) {
	for _, q := range []string{
		"a..b", "a.", ".a", "|a", "a|", `a\`, "!1e", "[!1e]", "a.#(b==1", "a.#(b==1))", "{a,b", "a]", `a.#(b=="x)`, "[a}", "..",
	} {
		var out bytes.Buffer
		err := Write(&out, nil, []byte(`{"a":1}`), Options{Query: q})
		var qe *QueryError
		if !errors.As(err, &qe) {
			t.Errorf("query %q: got error %v, want a *QueryError", q, err)
			continue
		}
		if qe.Query != q || qe.Reason == "" {
			t.Errorf("query %q: got %+v", q, qe)
		}
		if out.Len() != 0 {
			t.Errorf("query %q: wrote %q", q, out.String())
		}
	}
	for _, q := range []string{
		"a", "a.b.0", "a|b", `a\.b`, "a.#", `a.#(b=="x.y")#.c`, "{a,b}", `[a,"k":b]`, "@this", `@pretty:{"indent":"."}`, "..0", "a*.b?", "!true", "[!1,a]", "a|!1e",
		`a.#(b=="x\")y").c`, `a.#(b=="x\\").c`, // the escapes of a string in a bracket
	} {
		if err := CheckQuery(q); err != nil {
			t.Errorf("query %q rejected: %v", q, err)
		}
	}
	for q, want := range map[string]string{
		"a..b":         `invalid query "a..b": empty path component at offset 2`,
		"[!1e]":        `invalid query "[!1e]": it yields "[1e]", which is not valid JSON`,
		`a.#(b=="x\")`: `invalid query "a.#(b==\"x\\\")": unterminated string`,
	} {
		if err := CheckQuery(q); err == nil || err.Error() != want {
			t.Errorf("got %v, want %s", err, want)
		}
	}
}

func TestWriteInvalidJSON(t *testing.T) {
	var out bytes.Buffer
	for _, in := range []string{``, `{`, `{"a":1}{}`, `nope`} {
		if err := Write(&out, nil, []byte(in), Options{}); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("%q: got %v", in, err)
		}
	}
	if out.Len() != 0 {
		t.Errorf("wrote %q", out.String())
	}
}

func TestWriteJSONTruncated(t *testing.T) {
	dir := t.TempDir()
	result := `{"content":[{"type":"text","text":"` + strings.Repeat("x", 600) + `"}],"isError":false}`
	var out, errs bytes.Buffer
	if err := Write(&out, &errs, []byte(result), Options{MaxBytes: 400, Overflow: &Overflow{Dir: dir}}); err != nil {
		t.Fatal(err)
	}
	if out.Len() > 400 {
		t.Errorf("%d bytes", out.Len())
	}
	// How many x fit depends on the length of the overflow path.
	xs := regexp.MustCompile(`x{20,}…`)
	got := xs.ReplaceAllString(normalize(out.String(), dir), "xxx…")
	want := `{
  "content": [
    {
      "type": "text",
      "text": "xxx…[truncated]"
    }
  ],
  "isError": false,
  "_mcpc": {
    "bytes": 694,
    "file": "DIR/result-*.json",
    "lines": 9,
    "truncated": true
  }
}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	wantNote := fmt.Sprintf("mcpc: note: output truncated to %d bytes / 15 lines; full result (694 bytes) in DIR/result-*.json\n", out.Len())
	if notes := normalize(errs.String(), dir); notes != wantNote {
		t.Errorf("notes %q, want %q", notes, wantNote)
	}
	files := savedFiles(t, dir, "result-*.json")
	if len(files) != 1 {
		t.Fatalf("files: %v", files)
	}
	full, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(full, indented(t, []byte(result))) {
		t.Errorf("saved file is not the full result:\n%s", full)
	}
}

func TestWriteJSONTruncatedByLines(t *testing.T) {
	result := `[` + strings.Repeat(`1,`, 99) + `1]`
	got, notes := write(t, result, Options{MaxLines: 5})
	if got != "[\n  1,\n  1,\n  1\n]\n" {
		t.Errorf("got %q", got)
	}
	want := "mcpc: note: output truncated to 18 bytes / 5 lines; full result (503 bytes) not saved (no overflow directory)\n"
	if notes != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
}

func TestWriteTextTruncated(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := range 50 {
		lines = append(lines, strings.Repeat("ab", 10)+string(rune('A'+i%26)))
	}
	text := strings.Join(lines, "\n")
	result, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	got, notes := write(t, string(result), Options{Mode: ModeText, Kind: KindCallTool, MaxLines: 4, Overflow: &Overflow{Dir: dir}})
	want := strings.Join(lines[:3], "\n") + "\n… [truncated: full output in DIR/result-*.txt]\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	files := savedFiles(t, dir, "result-*.txt")
	if len(files) != 1 {
		t.Fatalf("files: %v", files)
	}
	if full, _ := os.ReadFile(files[0]); string(full) != text+"\n" {
		t.Errorf("saved %q", full)
	}
	stdoutBytes := len(strings.Replace(want, "DIR/result-*.txt", files[0], 1))
	wantNote := fmt.Sprintf("mcpc: note: output truncated to %d bytes / 4 lines; full result (1100 bytes) in DIR/result-*.txt\n", stdoutBytes)
	if notes != wantNote {
		t.Errorf("notes %q, want %q", notes, wantNote)
	}
}

func TestWriteTextLongLine(t *testing.T) {
	result, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.Repeat("é", 100)}}})
	got, _ := write(t, string(result), Options{Mode: ModeText, Kind: KindCallTool, MaxBytes: 64})
	want := strings.Repeat("é", 23) + "\n… [truncated]\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWriteTextKinds(t *testing.T) {
	png := b64("\x89PNG fake image bytes")
	tests := []struct {
		name   string
		kind   Kind
		result string
		want   string
		notes  string
	}{
		{
			name: "call tool", kind: KindCallTool,
			result: `{"content":[
				{"type":"text","text":"first line\nsecond \u001b[31mred\u001b[0m"},
				{"type":"text","text":"ends with newline\n"},
				{"type":"image","data":"` + png + `","mimeType":"image/png"},
				{"type":"audio","data":"` + b64("RIFF") + `","mimeType":"audio/wav"},
				{"type":"resource_link","uri":"file:///a.txt","name":"a.txt"},
				{"type":"resource","resource":{"uri":"file:///b.txt","mimeType":"text/plain","text":"embedded text"}},
				{"type":"resource","resource":{"uri":"file:///c.bin","mimeType":"application/octet-stream","blob":"` + b64("12345") + `"}},
				{"type":"hologram"}
			],"isError":true}`,
			want: "first line\nsecond red\n" +
				"ends with newline\n" +
				"[image image/png, 21 bytes]\n" +
				"[audio audio/wav, 4 bytes]\n" +
				"[resource link: a.txt <file:///a.txt>]\n" +
				"embedded text\n" +
				"[resource file:///c.bin, application/octet-stream, 5 bytes]\n" +
				"[unsupported content type \"hologram\"]\n",
		},
		{
			name: "call tool structured only", kind: KindCallTool,
			result: `{"content":[],"structuredContent":{"b":1,"a":"x"}}`,
			want:   "{\n  \"b\": 1,\n  \"a\": \"x\"\n}\n",
		},
		{
			name: "call tool not a result", kind: KindCallTool,
			result: `[1]`,
			want:   "[\n  1\n]\n",
		},
		{
			name: "read resource", kind: KindReadResource,
			result: `{"contents":[{"uri":"file:///a.txt","mimeType":"text/plain","text":"hello\r\nworld"},{"uri":"file:///b.png","mimeType":"image/png","blob":"` + png + `"}]}`,
			want:   "hello\nworld\n[blob file:///b.png image/png 21 bytes]\n",
		},
		{
			name: "get prompt", kind: KindGetPrompt,
			result: `{"description":"Review code","messages":[
				{"role":"user","content":{"type":"text","text":"Please review:\nfunc main() {}"}},
				{"role":"assistant","content":{"type":"image","data":"` + png + `","mimeType":"image/png"}},
				{"role":"user","content":{"type":"resource","resource":{"uri":"file:///x.go","text":"package x"}}}
			]}`,
			want: "Review code\nuser: Please review:\nfunc main() {}\nassistant: [image image/png, 21 bytes]\nuser: package x\n",
		},
		{
			name: "tool list", kind: KindToolList,
			result: `{"tools":[
				{"name":"search","title":"Search issues","description":"Search the issue tracker.\nSecond line is ignored.","inputSchema":{"type":"object","properties":{"page":{"type":"integer"},"q":{"type":"string"}},"required":["q"]}},
				{"name":"fetch_url","description":"  Fetch   a\tURL  ","inputSchema":{"type":"object"},"annotations":{"title":"Fetch"}},
				{"name":"x","description":"` + strings.Repeat("long words ", 10) + `","inputSchema":{"type":"object"}},
				{"name":"bare","inputSchema":{"type":"object"}}
			]}`,
			// Piped (no Width): a long description is never cut.
			want: "NAME       TITLE          ARGUMENTS  DESCRIPTION\n" +
				"search     Search issues  q*, page   Search the issue tracker.\n" +
				"fetch_url  Fetch          -          Fetch a URL\n" +
				"x          -              -          " + strings.TrimSpace(strings.Repeat("long words ", 10)) + "\n" +
				"bare       -              -\n",
		},
		{
			name: "resource list", kind: KindResourceList,
			result: `{"resources":[{"uri":"file:///a.txt","name":"a","description":"File A"},{"uri":"mem://x","name":"x\u001b]0;pwned\u0007"}]}`,
			want:   "URI            NAME  DESCRIPTION\nfile:///a.txt  a     File A\nmem://x        x\n",
		},
		{
			name: "template list", kind: KindTemplateList,
			result: `{"resourceTemplates":[{"uriTemplate":"file:///{path}","name":"file","description":"A file"}]}`,
			want:   "URITEMPLATE     NAME  DESCRIPTION\nfile:///{path}  file  A file\n",
		},
		{
			name: "prompt list", kind: KindPromptList,
			result: `{"prompts":[{"name":"review","description":"Review code","arguments":[{"name":"path","required":true},{"name":"style"}]},{"name":"hello"}]}`,
			want:   "NAME    ARGUMENTS     DESCRIPTION\nreview  path*, style  Review code\nhello   -\n",
		},
		{
			name: "server list", kind: KindServerList,
			result: `{"servers":[{"name":"github","transport":"http","source":"user","trusted":true,"active":true},{"name":"github","transport":"stdio","source":"user2","trusted":true,"active":false},{"name":"local","transport":"stdio","source":"project","trusted":false}]}`,
			want:   "NAME    TRANSPORT  STATUS      SOURCE\ngithub  http       active      user\ngithub  stdio      overridden  user2\nlocal   stdio      untrusted   project\n",
		},
		{
			// Sizes are the entries' own: nothing was read. A name two
			// skills share shows their paths.
			name: "skill list", kind: KindSkillList,
			result: `{"skills":[{"uri":"skill://pdf/SKILL.md","frontmatter":{"name":"pdf","description":"PDFs\n\nmore"},"resources":[{"uri":"skill://pdf/SKILL.md","size":10},{"uri":"skill://pdf/a","size":5}]},` +
				`{"uri":"skill://a/dup/SKILL.md","frontmatter":{"name":"dup","description":"x\u001b[2J"},"resources":"dynamic"},{"uri":"skill://b/dup/SKILL.md","frontmatter":{"name":"dup"},"resources":[]}]}`,
			want: "NAME   FILES    SIZE      DESCRIPTION\npdf    2        15 bytes  PDFs\na/dup  dynamic  -         x\nb/dup  0        0 bytes\n",
		},
		{name: "empty skills", kind: KindSkillList, result: `{"skills":[]}`, notes: "mcpc: note: server lists no skills\n"},
		{name: "empty tools", kind: KindToolList, result: `{"tools":[]}`, notes: "mcpc: note: server has no tools\n"},
		{name: "empty resources", kind: KindResourceList, result: `{}`, notes: "mcpc: note: server has no resources\n"},
		{name: "null resources", kind: KindResourceList, result: `{"resources":null}`, notes: "mcpc: note: server has no resources\n"},
		{name: "list of the wrong shape", kind: KindToolList, result: `{"tools":"many"}`, want: "{\n  \"tools\": \"many\"\n}\n"},
		{name: "call tool null content", kind: KindCallTool, result: `{"content":null,"structuredContent":[1]}`, want: "[\n  1\n]\n"},
		{name: "empty templates", kind: KindTemplateList, result: `{"resourceTemplates":[]}`, notes: "mcpc: note: server has no resource templates\n"},
		{name: "empty prompts", kind: KindPromptList, result: `{"prompts":[]}`, notes: "mcpc: note: server has no prompts\n"},
		{name: "empty servers", kind: KindServerList, result: `{"servers":[]}`, notes: "mcpc: note: no servers configured\n"},
		{
			name: "generic", kind: KindGeneric,
			result: "{\"b\":\"\u009b31mx\",\"a\":[1,\"\u202eevil\"]}",
			want:   "{\n  \"b\": \"x\",\n  \"a\": [\n    1,\n    \"evil\"\n  ]\n}\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notes := write(t, tt.result, Options{Mode: ModeText, Kind: tt.kind})
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			if notes != tt.notes {
				t.Errorf("notes %q, want %q", notes, tt.notes)
			}
		})
	}
}

func TestWriteTextSavedMedia(t *testing.T) {
	dir := t.TempDir()
	result := `{"content":[{"type":"image","data":"` + b64("big image") + `","mimeType":"image/jpeg"}]}`
	got, notes := write(t, result, Options{Mode: ModeText, Kind: KindCallTool, MaxMediaBytes: 4, Overflow: &Overflow{Dir: dir}})
	if want := "[image image/jpeg, 9 bytes: saved to DIR/image-*.jpg]\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if want := "mcpc: note: image (image/jpeg, 9 bytes) saved to DIR/image-*.jpg\n"; notes != want {
		t.Errorf("notes %q, want %q", notes, want)
	}

	result = `{"contents":[{"uri":"file:///b.bin","blob":"` + b64("blob bytes") + `"}]}`
	got, _ = write(t, result, Options{Mode: ModeText, Kind: KindReadResource, MaxMediaBytes: 4, Overflow: &Overflow{Dir: dir}})
	if want := "[blob file:///b.bin 10 bytes: saved to DIR/blob-*.bin]\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
