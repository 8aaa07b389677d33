package format

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// colourLog is server text as a build tool prints it: mostly plain, with
// colour sequences on some lines.
func colourLog(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		if i%4 == 0 {
			b.WriteString("\x1b[1;32m  PASS\x1b[0m pkg/module/file_test.go (0.42 s)\n")
		} else {
			b.WriteString("  ok   building pkg/module/file.go from its sources\n")
		}
	}
	return b.String()
}

// BenchmarkWriteHugeText bounds a 10 MiB text result in text mode: cut to
// the inline bound, escapes stripped, the whole saved to an overflow file.
func BenchmarkWriteHugeText(b *testing.B) {
	result, err := json.Marshal(map[string]any{
		"content": []any{map[string]any{"type": "text", "text": colourLog(10 << 20)}},
	})
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Mode: ModeText, Kind: KindCallTool, Overflow: &Overflow{Dir: b.TempDir()}}
	b.SetBytes(int64(len(result)))
	for b.Loop() {
		if err := Write(io.Discard, io.Discard, result, opts); err != nil {
			b.Fatal(err)
		}
	}
}
