package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpc-dev/mcpc/internal/memtest"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Bounding a large result streams the full rendering to the overflow file
// and cuts the long string from its raw text: what it allocates grows with
// the inline bound, not with the result (which used to be rendered whole,
// twice its size, and its string decoded whole).
func TestWriteLargeResultAllocations(t *testing.T) {
	text := strings.Repeat("line of text\n", 20<<20/13)
	result, err := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "overflow")
	var out strings.Builder
	n := memtest.Allocated(func() {
		if err := Write(&out, io.Discard, result, Options{Overflow: &Overflow{Dir: dir}}); err != nil {
			t.Fatal(err)
		}
	})
	if limit := uint64(len(result) / 2); n > limit {
		t.Errorf("bounding a %d-byte result allocated %d bytes, want at most %d", len(result), n, limit)
	}
	if !strings.Contains(out.String(), `…[truncated]"`) || out.Len() > DefaultMaxBytes {
		t.Errorf("output of %d bytes is not cut", out.Len())
	}
	_, full := onlyFile(t, dir)
	var back struct{ Content []struct{ Text string } }
	if err := json.Unmarshal(full, &back); err != nil || len(back.Content) != 1 || back.Content[0].Text != text {
		t.Errorf("the overflow file does not hold the result: %v", err)
	}
}

// onlyFile returns the path and content of the one file in dir.
func onlyFile(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("overflow dir: %v, %v", entries, err)
	}
	path := filepath.Join(dir, entries[0].Name())
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, full
}

// rawRune decodes JSON string text as encoding/json does.
func TestRawRune(t *testing.T) {
	for _, s := range []string{
		`plain`, `é中😀`, `\n\t\r\b\f\/\\\"`, `\u00e9\u4e2d`, `\ud83d\ude00`, `\ud83d`, `\ude00x`,
		`\ud83dx`, `\ud83d\u0041`, `\u0000`, `a\u200eb`, "\x7f",
	} {
		var want string
		if err := json.Unmarshal([]byte(`"`+s+`"`), &want); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		var got []rune
		for b := []byte(s); len(b) > 0; {
			r, size := rawRune(b)
			got = append(got, r)
			b = b[size:]
		}
		if string(got) != want || len(got) != utf8.RuneCountInString(want) {
			t.Errorf("rawRune(%s) = %q, want %q", s, string(got), want)
		}
	}
}

// The overflow cap holds for a streamed file too: over it, nothing is kept.
func TestSaveStreamOverCap(t *testing.T) {
	o := &Overflow{Dir: filepath.Join(t.TempDir(), "overflow"), CapBytes: 100}
	_, err := o.SaveStream("result", ".json", func(w io.Writer) error {
		for range 10 {
			if _, err := io.WriteString(w, strings.Repeat("x", 30)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != ErrTooLarge {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if entries, _ := os.ReadDir(o.Dir); len(entries) != 0 {
		t.Errorf("left %d files", len(entries))
	}
}

func manyItems(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"content":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"text","text":"item ` + strings.Repeat("1", 1+i%6) + `"}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkWriteManyItems bounds a result of a million small items.
func BenchmarkWriteManyItems(b *testing.B) {
	result := manyItems(1000000)
	opts := Options{Mode: ModeJSON, Kind: KindCallTool}
	b.SetBytes(int64(len(result)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, io.Discard, result, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// A result of many small items keeps only the items a bounded rendering
// can show as a tree: the output is the same as from the whole tree, the
// overflow file the whole result, and what it allocates is a fraction of
// the result (the whole tree cost ten times its size).
func TestWriteManyItems(t *testing.T) {
	result := manyItems(200000)
	dir := filepath.Join(t.TempDir(), "overflow")
	var out bytes.Buffer
	n := memtest.Allocated(func() {
		if err := Write(&out, io.Discard, result, Options{Overflow: &Overflow{Dir: dir}}); err != nil {
			t.Fatal(err)
		}
	})
	if limit := uint64(len(result)); n > limit {
		t.Errorf("bounding a %d-byte result of 200000 items allocated %d bytes, want at most %d", len(result), n, limit)
	}
	path, full := onlyFile(t, dir)
	var want bytes.Buffer
	if err := json.Indent(&want, result, "", "  "); err != nil {
		t.Fatal(err)
	}
	want.WriteByte('\n')
	if !bytes.Equal(full, want.Bytes()) {
		t.Errorf("the overflow file (%d bytes) is not the whole result indented (%d bytes)", len(full), want.Len())
	}
	root, err := parseJSON(result)
	if err != nil {
		t.Fatal(err)
	}
	marker := map[string]any{"truncated": true, "bytes": want.Len(), "lines": bytes.Count(want.Bytes(), []byte{'\n'}), "file": path}
	if exp := truncateTree(root, DefaultMaxBytes, DefaultMaxLines, marker); !bytes.Equal(out.Bytes(), exp) {
		t.Errorf("bounded output differs from the whole tree's:\n%.300s\nwant\n%.300s", out.Bytes(), exp)
	}
}

// decodeRaw decodes as encoding/json does.
func TestDecodeRaw(t *testing.T) {
	for _, s := range []string{``, `plain`, `a\nb`, `\u00e9\ud83d\ude00\n\t\"\\\/ \ud800x`, `\\\\`, `é中😀\u0041`} {
		var want string
		if err := json.Unmarshal([]byte(`"`+s+`"`), &want); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got := decodeRaw([]byte(s)); got != want {
			t.Errorf("decodeRaw(%s) = %q, want %q", s, got, want)
		}
	}
}

// writeTextWhole is how text mode wrote a tool's result before it streamed:
// the whole tree rendered into one string, then bounded.
func writeTextWhole(t *testing.T, out, notes io.Writer, result []byte, opts Options) {
	t.Helper()
	root, err := parseJSON(result)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if !callToolText(&b, root) {
		t.Fatal("not a CallToolResult")
	}
	if err := writeText(out, notes, b.String(), opts.normalized()); err != nil {
		t.Fatal(err)
	}
}

// checkTextBounded bounds result, a CallToolResult, as text: what it
// allocates is at most limit, the output and notes are what the whole text
// bounded gives, and the overflow file holds the whole text.
func checkTextBounded(t *testing.T, result []byte, limit uint64) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "overflow")
	opts := Options{Mode: ModeText, Kind: KindCallTool}
	var out bytes.Buffer
	n := memtest.Allocated(func() {
		o := opts
		o.Overflow = &Overflow{Dir: dir}
		if err := Write(&out, io.Discard, result, o); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("bounding a %d-byte result as text allocated %d bytes", len(result), n)
	if n > limit {
		t.Errorf("bounding a %d-byte result as text allocated %d bytes, want at most %d", len(result), n, limit)
	}
	_, full := onlyFile(t, dir)
	var whole strings.Builder
	root, _ := parseJSON(result)
	callToolText(&whole, root)
	if want := strings.TrimSuffix(textsafe.StripControl(whole.String()), "\n") + "\n"; string(full) != want {
		t.Errorf("the overflow file (%d bytes) is not the whole text (%d bytes)", len(full), len(want))
	}
	// Without an overflow file the trailer names no path, so the output
	// can be compared with the whole text's.
	var got, gotNotes, want, wantNotes bytes.Buffer
	if err := Write(&got, &gotNotes, result, opts); err != nil {
		t.Fatal(err)
	}
	writeTextWhole(t, &want, &wantNotes, result, opts)
	if !bytes.Equal(got.Bytes(), want.Bytes()) || gotNotes.String() != wantNotes.String() {
		t.Errorf("bounded text differs from the whole text's:\n%.300s%s\nwant\n%.300s%s", got.Bytes(), gotNotes.String(), want.Bytes(), wantNotes.String())
	}
}

// A long text is measured, cut and saved a chunk at a time, from the raw
// result: never decoded or rendered whole (which cost twice its size).
func TestWriteTextLargeResultAllocations(t *testing.T) {
	text := strings.Repeat("line of text\n", 20<<20/13)
	result, err := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	if err != nil {
		t.Fatal(err)
	}
	checkTextBounded(t, result, uint64(len(result)/8))
}

// A long text with escape sequences is stripped a piece at a time too
// (it was rendered whole, then stripped into a second copy).
func TestWriteTextEscapesAllocations(t *testing.T) {
	result, err := json.Marshal(map[string]any{"content": []any{
		map[string]any{"type": "text", "text": colourLog(10<<20) + "\x1b]0;title split"},
		map[string]any{"type": "text", "text": " across blocks\x07" + colourLog(10<<20)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	checkTextBounded(t, result, uint64(len(result)/8))
}

// A result of many small items is parsed capped in text mode too: the
// items after the first few are rendered one at a time (the whole tree
// and text cost fourteen times the result).
func TestWriteTextManyItems(t *testing.T) {
	result := manyItems(200000)
	checkTextBounded(t, result, uint64(len(result)/2))
}

// A server's list over 1 MiB is read capped in text mode: the table is the
// one the whole tree gives, and an item's own long arrays are whole.
func TestWriteTextLongList(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range 30000 {
		if i > 0 {
			b.WriteByte(',')
		}
		desc := "Tool " + strings.Repeat("x", i%50)
		if i%7 == 0 {
			desc = "" // the last column empty: no trailing blanks
		}
		fmt.Fprintf(&b, `{"name":"tool-%d","description":%q,"inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}`, i, desc)
	}
	// The first tool, parsed as a node, with a longer array than a capped
	// parse keeps of a container: its one argument is required by the
	// last entry. (Each is its object's first key: a capped object's
	// other keys are parsed whole when looked up.)
	var w strings.Builder
	w.WriteString(`{"inputSchema":{"required":[`)
	for i := range 2100 {
		fmt.Fprintf(&w, `"r%d",`, i)
	}
	w.WriteString(`"q"],"type":"object","properties":{"q":{}}},"name":"wide"},`)
	b.WriteString(`],"_meta":{"k":[1,2,3]},"nextCursor":null}`)
	result := []byte(strings.Replace(b.String(), `"tools":[`, `"tools":[`+w.String(), 1))
	if len(result) <= capAbove {
		t.Fatalf("the list is only %d bytes", len(result))
	}
	opts := Options{Mode: ModeText, Kind: KindToolList, MaxBytes: 1 << 30, MaxLines: 1 << 30}
	var got bytes.Buffer
	if err := Write(&got, io.Discard, result, opts); err != nil {
		t.Fatal(err)
	}
	root, _ := parseJSON(result)
	want := renderText(root, opts.normalized(), io.Discard)
	if got.String() != want {
		t.Errorf("the table differs from the whole tree's: %d bytes, want %d", got.Len(), len(want))
	}
	if !regexp.MustCompile(`(?m)^wide +- +q\*$`).MatchString(got.String()) || strings.Contains(got.String(), " \n") {
		t.Errorf("the table lost the wide tool's required argument or has trailing blanks")
	}
}
