package format

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// The last step of a plain path, taken from the raw text, selects what
// gjson selects.
func TestSelectRawAsGjson(t *testing.T) {
	doc := []byte(`{"content":[{"type":"text","text":"a\nb"},{"type":"text","text":"two"}],` +
		`"dup":1,"dup":2,"obj":{"0":"zero","k-1":[1,[2,3],{"x":null}]},"s":"str","n":12.5e3,` +
		`"e":{},"a":[],"esc\"key":true,"nested":{"deep":{"deeper":[{"v":"\u00e9"}]}}}`)
	for _, q := range []string{
		"content", "content.0", "content.1.text", "content.0.text", "content.2", "content.01",
		"content.-1", "content.x", "dup", "obj.0", "obj.k-1", "obj.k-1.1", "obj.k-1.2.x",
		"obj.k-1.5", "s", "s.x", "n", "n.x", "e", "e.x", "a.0", "missing", "missing.x",
		"nested.deep.deeper.0.v", "content.0.text.x", "content.#", "content.#.text", "esc\\\"key",
	} {
		got, err := selectRaw(doc, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		want := []byte(nil)
		if res := gjson.GetBytes(doc, q); res.Exists() {
			want = []byte(res.Raw)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("selectRaw(%s) = %s, want %s", q, got, want)
		}
	}
}

// A query of a long text reads the result as it arrived: no tree of it,
// and the text selected is neither copied nor decoded whole (that cost
// three to five times its size).
func TestWriteQueryLargeTextAllocations(t *testing.T) {
	text := strings.Repeat("line of text\n", 20<<20/13)
	result, err := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{ModeJSON, ModeText} {
		var out bytes.Buffer
		n := memtest.Allocated(func() {
			if err := Write(&out, io.Discard, result, Options{Mode: mode, Kind: KindCallTool, Query: "content.0.text"}); err != nil {
				t.Fatal(err)
			}
		})
		if limit := uint64(len(result) / 3); n > limit {
			t.Errorf("mode %d: a query of a %d-byte result allocated %d bytes, want at most %d", mode, len(result), n, limit)
		}
		want := text[:strings.Index(text[DefaultMaxBytes-200:], "\n")+DefaultMaxBytes-199]
		if mode == ModeText && !strings.HasPrefix(out.String(), want[:DefaultMaxBytes/2]) {
			t.Errorf("text output starts %.100q", out.String())
		}
		if mode == ModeJSON && !strings.HasPrefix(out.String(), `"line of text\nline of text\n`) {
			t.Errorf("JSON output starts %.100q", out.String())
		}
	}
}

// A query selecting many items parses them capped: not a tree of them all.
func TestWriteQueryManyItems(t *testing.T) {
	result := manyItems(200000)
	var got bytes.Buffer
	n := memtest.Allocated(func() {
		if err := Write(&got, io.Discard, result, Options{Query: "content"}); err != nil {
			t.Fatal(err)
		}
	})
	if limit := uint64(len(result) / 2); n > limit {
		t.Errorf("a query of %d items allocated %d bytes, want at most %d", 200000, n, limit)
	}
	// The same as the whole selection's tree bounded.
	sel, _ := selectRaw(result, "content")
	whole, _ := parseJSON(sel)
	var want bytes.Buffer
	if err := writeJSON(&want, io.Discard, whole, Options{}.normalized()); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("capped query output differs:\n%.300s\nwant\n%.300s", got.String(), want.String())
	}
}
