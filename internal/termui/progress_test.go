package termui

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// The live line never wraps: a message of wide (CJK) characters is cut to
// the terminal's width in columns, not in runes, so the line is redrawn in
// place instead of scrolling the screen.
func TestProgressLineWidth(t *testing.T) {
	var out strings.Builder
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := start
	p := StartProgress(&out, false, false, 30, func() time.Time { return clock })
	p.live = true // drawn in place, but with no animating goroutine
	clock = start.Add(time.Second)
	p.Update(&Status{Message: "日本語のメッセージがとても長いです", Progress: 1, Total: 4})
	p.Stop()
	drawn := strings.Split(out.String(), "\r\x1b[K")
	if len(drawn) != 3 || drawn[2] != "" {
		t.Fatalf("output %q: want one line drawn, then cleared", out.String())
	}
	line := drawn[1]
	if want := "| 日本語のメッセージがとても…"; line != want {
		t.Errorf("line = %q, want %q", line, want)
	}
	if w := textsafe.Width(line); w > 29 {
		t.Errorf("line %q is %d columns wide, more than 29", line, w)
	}
}
