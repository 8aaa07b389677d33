package textsafe

import (
	"strings"
	"testing"
)

// colourLines are lines as a build tool prints them: mostly plain, with
// colour sequences on some.
const colourLines = "\x1b[1;32m  PASS\x1b[0m pkg/module/file_test.go (0.42 s)\n" +
	"  ok   building pkg/module/file.go from its sources\n" +
	"  ok   building pkg/module/other.go from its sources\n"

// stripBenchTexts are the texts the stripping benchmarks strip: 1 MiB of
// clean text and of coloured text.
func stripBenchTexts() []struct{ name, text string } {
	return []struct{ name, text string }{
		{"clean", strings.Repeat("plain text that needs nothing removed\n", 28000)},
		{"colour", strings.Repeat(colourLines, (1<<20)/len(colourLines)+1)},
	}
}

func BenchmarkStripControl(b *testing.B) {
	for _, c := range stripBenchTexts() {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				StripControl(c.text)
			}
		})
	}
}
