package termui

import (
	"bytes"
	"strings"
	"testing"

	redaction "github.com/mcpc-dev/mcpc/internal/redact"
)

// TestLastLine: each write's last whole line is shown, however the lines
// are split across writes, a long one cut to maxShownLine; everything is
// passed on as written.
func TestLastLine(t *testing.T) {
	var out bytes.Buffer
	var shown []string
	l := &LastLine{W: &out, Show: func(s string) { shown = append(shown, s) }}
	for _, w := range []string{"down", "loading 1\nloading 2\nalmo", "st there\n", "   \n", strings.Repeat("z", 2000) + "\n"} {
		l.Write([]byte(w))
	}
	want := []string{"loading 2", "almost there", strings.Repeat("z", maxShownLine)}
	if len(shown) != len(want) || shown[0] != want[0] || shown[1] != want[1] || shown[2] != want[2] {
		t.Errorf("shown %q", shown)
	}
	if out.Len() != len("downloading 1\nloading 2\nalmost there\n   \n")+2001 {
		t.Errorf("passed on %d bytes", out.Len())
	}
}

// A secret in the server's line is redacted before the line is cut to fit
// the live line: cut first, its start would be no secret the redacting
// stderr knows.
func TestStartUpLineRedactedBeforeCut(t *testing.T) {
	secret := "sk-live-" + strings.Repeat("abcdef", 10)
	secrets := redaction.NewSet()
	secrets.Add(secret)
	u := &StartUp{Secrets: secrets}
	if got, want := u.shown("starting the server", "using key "+secret+" now"), "starting the server: using key <redacted> now"; got != want {
		t.Errorf("shown %q, want %q", got, want)
	}
	if got := (&StartUp{}).shown("starting", "\x1b[31m"+strings.Repeat("x", 80)); got != "starting: "+strings.Repeat("x", shownLine-1)+"…" {
		t.Errorf("shown %q", got)
	}
}
