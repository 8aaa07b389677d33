package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// indented is the reference rendering of a document that fits: what
// json.Indent prints, with invalid UTF-8 repaired and one final newline.
func indented(t testing.TB, doc []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	doc = bytes.ToValidUTF8(doc, []byte("\uFFFD"))
	if err := json.Indent(&buf, bytes.TrimSpace(doc), "", "  "); err != nil {
		t.Fatalf("indent %q: %v", doc, err)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

func lineCount(b []byte) int { return bytes.Count(b, []byte{'\n'}) }

func testMarker() map[string]any {
	return map[string]any{"truncated": true, "file": "overflow/result-1.json", "bytes": 123456, "lines": 789}
}

// checkTruncated asserts the TruncateJSON contract for one call.
func checkTruncated(t testing.TB, doc, out []byte, maxBytes, maxLines int) {
	t.Helper()
	if !json.Valid(out) {
		t.Fatalf("invalid JSON output %q", out)
	}
	if !utf8.Valid(out) {
		t.Fatalf("invalid UTF-8 in output %q", out)
	}
	if !bytes.HasSuffix(out, []byte("\n")) {
		t.Fatalf("no final newline: %q", out)
	}
	if len(out) > maxBytes || lineCount(out) > maxLines {
		t.Fatalf("%d bytes / %d lines over %d / %d: %q", len(out), lineCount(out), maxBytes, maxLines, out)
	}
	if got := indented(t, out); !bytes.Equal(got, out) {
		t.Fatalf("output not canonically indented:\n%s\nwant\n%s", out, got)
	}
	want := indented(t, doc)
	if len(want) <= maxBytes && lineCount(want) <= maxLines && !bytes.Equal(out, want) {
		t.Fatalf("input fits but output differs:\n%s\nwant\n%s", out, want)
	}
	in := bytes.TrimLeft(doc, " \t\r\n")
	switch in[0] {
	case '{', '[', '"':
		if out[0] != in[0] {
			t.Fatalf("shape changed from %c: %q", in[0], out)
		}
	}
}

func TestTruncateJSON(t *testing.T) {
	tests := []struct {
		name               string
		doc                string
		maxBytes, maxLines int
		want               string
	}{
		{
			name: "fits unchanged", doc: `{"b": 1, "a": [1, 2, {}], "c": []}`, maxBytes: 1000, maxLines: 100,
			want: "{\n  \"b\": 1,\n  \"a\": [\n    1,\n    2,\n    {}\n  ],\n  \"c\": []\n}\n",
		},
		{
			name: "long string cut with marker", doc: `{"text":"` + strings.Repeat("é", 500) + `"}`, maxBytes: 300, maxLines: 20,
			want: "{\n  \"text\": \"" + strings.Repeat("é", 76) + "…[truncated]\",\n  \"_mcpc\": {\n    \"bytes\": 123456,\n    \"file\": \"overflow/result-1.json\",\n    \"lines\": 789,\n    \"truncated\": true\n  }\n}\n",
		},
		{
			name: "array keeps a prefix, marker dropped", doc: `[1,2,3,4,5,6,7,8,9,10]`, maxBytes: 64, maxLines: 6,
			want: "[\n  1,\n  2,\n  3,\n  4\n]\n",
		},
		{
			name: "top-level string", doc: `"` + strings.Repeat("x", 100) + `"`, maxBytes: 64, maxLines: 3,
			want: `"` + strings.Repeat("x", 44) + "…[truncated]\"\n",
		},
		{
			name: "marker does not fit", doc: `{"a":1,"b":2,"c":3}`, maxBytes: 64, maxLines: 3,
			want: "{}\n",
		},
		{
			name: "short string with long escapes", doc: `"` + strings.Repeat(`\ud83d\ude00`, 10) + `"`, maxBytes: 64, maxLines: 3,
			want: "\"…[truncated]\"\n",
		},
		{
			name: "huge number", doc: strings.Repeat("9", 100), maxBytes: 64, maxLines: 3,
			want: "null\n",
		},
		{
			name: "depth collapsed", doc: `[[[[[[1]]]]]]`, maxBytes: 64, maxLines: 5,
			want: "[\n  [\n    []\n  ]\n]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := TruncateJSON([]byte(tt.doc), tt.maxBytes, tt.maxLines, testMarker())
			if string(out) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", out, tt.want)
			}
			checkTruncated(t, []byte(tt.doc), out, tt.maxBytes, tt.maxLines)
		})
	}
}

func TestTruncateJSONKeepsKeyOrderAndEscapes(t *testing.T) {
	doc := `{"z":"a\u00e9\n\"q\"","a":1.50e+3,"m":[true,false,null],"<&>":"</script>"}`
	out := TruncateJSON([]byte(doc), 1000, 100, nil)
	want := "{\n  \"z\": \"a\\u00e9\\n\\\"q\\\"\",\n  \"a\": 1.50e+3,\n  \"m\": [\n    true,\n    false,\n    null\n  ],\n  \"<&>\": \"</script>\"\n}\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestTruncateJSONInvalid(t *testing.T) {
	if got := TruncateJSON([]byte(`{"a":`), 100, 10, nil); string(got) != "null\n" {
		t.Errorf("got %q", got)
	}
}

func TestTruncateJSONClampsBounds(t *testing.T) {
	doc := []byte(`{"a":"` + strings.Repeat("b", 200) + `"}`)
	out := TruncateJSON(doc, 1, 1, nil)
	checkTruncated(t, doc, out, MinMaxBytes, MinMaxLines)
}

func TestTruncateJSONLarge(t *testing.T) {
	doc := hugeResult(2 << 20)
	for _, lim := range []struct{ bytes, lines int }{{50 * 1024, 2000}, {4096, 2000}, {50 * 1024, 40}, {64, 3}} {
		out := TruncateJSON(doc, lim.bytes, lim.lines, testMarker())
		checkTruncated(t, doc, out, lim.bytes, lim.lines)
		if lim.bytes == 50*1024 && lim.lines == 2000 && len(out) < 40*1024 {
			t.Errorf("kept only %d of %d bytes", len(out), lim.bytes)
		}
	}
}

func FuzzTruncateJSON(f *testing.F) {
	seeds := []string{
		`null`, `true`, `0`, `-1.5e-300`, `""`, `"x"`, `[]`, `{}`, ` [ ] `, "{\n}\t",
		`"` + strings.Repeat("long string ", 40) + `"`,
		`"` + strings.Repeat("ünïcödé 世界 🙂", 30) + `"`,
		`"\u00e9\ud83d\ude00\n\t\"\\\/ \ud800"`,
		`{"a":{"b":{"c":{"d":{"e":{"f":[1,[2,[3,[4]]]]}}}}}}`,
		`[` + strings.Repeat(`1,`, 500) + `1]`,
		`[` + strings.Repeat(`{"k":"v","n":[1,2,3]},`, 100) + `{}]`,
		`{"content":[{"type":"text","text":"` + strings.Repeat("line\\n", 300) + `"}],"isError":false}`,
		`{"_mcpc":1,"x":"` + strings.Repeat("y", 200) + `"}`,
		strings.Repeat("[", 100) + strings.Repeat("]", 100),
		`12345678901234567890123456789012345678901234567890123456789012345678901234567890`,
		"\"\xff\xfe invalid utf-8 \xc3\"",
		`"` + strings.Repeat(`\ud83d\ude00`, 10) + `"`,
		`{"a":"","":"b","c":[[],{},""]}`,
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint16(64+i*37), uint16(3+i*2))
	}
	f.Fuzz(func(t *testing.T, data []byte, maxBytes, maxLines uint16) {
		if !json.Valid(data) {
			t.Skip()
		}
		mb := max(int(maxBytes), MinMaxBytes)
		ml := max(int(maxLines), MinMaxLines)
		out := TruncateJSON(data, mb, ml, testMarker())
		checkTruncated(t, data, out, mb, ml)

		// A capped parse (parseCapped) renders in full as the whole tree
		// does, and bounds the same when it keeps what a bounding shows.
		whole, _ := parseJSON(data)
		small, _ := parseCapped(data, 1+int(maxLines)%4)
		if got, want := renderAll(small, 0), renderAll(whole, 0); !bytes.Equal(got, want) {
			t.Errorf("capped rendering differs:\n%s\nwant\n%s", got, want)
		}
		capped, _ := parseCapped(data, ml+1)
		if got := truncateTree(capped, mb, ml, testMarker()); !bytes.Equal(got, out) {
			t.Errorf("capped bounding differs:\n%s\nwant\n%s", got, out)
		}
	})
}

// hugeResult builds a CallToolResult of at least size bytes whose bulk is in
// structuredContent, the shape a search or listing tool returns.
func hugeResult(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"content":[{"type":"text","text":"see structuredContent"}],"structuredContent":{"items":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item-%d","description":"%s","tags":["a","b","c"],"score":%d.5}`,
			i, i, strings.Repeat("lorem ipsum dolor sit amet ", 8), i%100)
	}
	b.WriteString(`]},"isError":false}`)
	return b.Bytes()
}

func BenchmarkWriteHugeJSON(b *testing.B) {
	result := hugeResult(10 << 20)
	opts := Options{Mode: ModeJSON, Overflow: &Overflow{Dir: b.TempDir()}}
	b.SetBytes(int64(len(result)))
	b.ResetTimer()
	for b.Loop() {
		if err := Write(io.Discard, io.Discard, result, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTruncateJSON(b *testing.B) {
	doc := hugeResult(10 << 20)
	root, err := parseJSON(doc)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		truncateTree(root, DefaultMaxBytes, DefaultMaxLines, testMarker())
	}
}
