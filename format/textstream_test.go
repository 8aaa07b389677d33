package format

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// A string streamed in chunks is its decoded value, cut only between runes.
func TestPiecesNode(t *testing.T) {
	for _, s := range []string{
		"",
		"plain",
		strings.Repeat("é中😀 \n\t\"\\/\b\u2028", textChunk/7),
		strings.Repeat("x", textChunk-1) + "😀😀",
		strings.Repeat("\n", 3*textChunk+5),
		strings.Repeat("\U0001F600", textChunk),
	} {
		raw, _ := json.Marshal(s)
		for _, r := range []string{string(raw), strings.ReplaceAll(string(raw), `\n`, `\u000a`)} {
			n, err := parseJSON([]byte(r))
			if err != nil {
				t.Fatal(err)
			}
			var got []byte
			p := &pieces{emit: func(b []byte) {
				if !utf8.Valid(b) || len(b) > textChunk {
					t.Errorf("a piece of %d bytes is not whole runes", len(b))
				}
				got = append(got, b...)
			}}
			p.node(n)
			if string(got) != s {
				t.Errorf("streamed %d bytes of a %d-byte string, not its value", len(got), len(s))
			}
		}
	}
}

// A CallToolResult streamed as text, its long containers parsed capped,
// is bounded exactly as its whole text is.
func FuzzWriteCallToolText(f *testing.F) {
	for i, s := range []string{
		`{"content":[{"type":"text","text":"hello"}]}`,
		`{"content":[{"type":"text","text":"a\nb\n"},{"type":"text","text":""},{"type":"image","mimeType":"image/png","data":"AAAA"}]}`,
		`{"content":[{"type":"text","text":"` + strings.Repeat("line\\n", 300) + `"}],"isError":false}`,
		`{"content":[` + strings.Repeat(`{"type":"text","text":"item"},`, 50) + `{"type":"resource_link","name":"n","uri":"u"}]}`,
		`{"content":[{"type":"text","text":"{\"a\":[1,2,3]}"}],"structuredContent":{"a":[1,2,3]}}`,
		`{"content":null,"structuredContent":{"a":[1,2,3,4,5,6]}}`,
		`{"content":[{"type":"resource","resource":{"uri":"x","text":"res"}},{"type":"resource","resource":{"uri":"y","blob":"AA=="}}]}`,
		`{"content":[{"type":"text","text":"a\u001b]0;t"},{"type":"text","text":"b\u0007c"}]}`,
		`{"content":[{"type":"unknown"},{"type":"te\u0078t","text":"escaped type"}]}`,
		`{"content":"x"}`,
		`{"content":[{"type":"text","text":"` + strings.Repeat("ünï 世界 🙂", 40) + `"}]}`,
	} {
		f.Add([]byte(s), uint16(64+i*37), uint16(3+i*2), uint8(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, maxBytes, maxLines uint16, keep uint8) {
		if !json.Valid(data) {
			t.Skip()
		}
		opts := Options{Mode: ModeText, Kind: KindCallTool, MaxBytes: int(maxBytes), MaxLines: int(maxLines)}.normalized()
		whole, _ := parseJSON(data)
		var text strings.Builder
		if !callToolText(&text, whole) {
			t.Skip()
		}
		var want, wantNotes bytes.Buffer
		if err := writeText(&want, &wantNotes, text.String(), opts); err != nil {
			t.Fatal(err)
		}
		capped, _ := parseCapped(data, 1+int(keep)%8)
		var got, gotNotes bytes.Buffer
		if ok, err := writeCallTool(&got, &gotNotes, capped, opts); !ok || err != nil {
			t.Fatalf("writeCallTool: %v, %v", ok, err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) || gotNotes.String() != wantNotes.String() {
			t.Errorf("streamed text differs:\n%q%q\nwant\n%q%q", got.Bytes(), gotNotes.String(), want.Bytes(), wantNotes.String())
		}
	})
}
