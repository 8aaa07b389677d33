package redact

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/memtest"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// reference is what a Writer must produce: every form replaced over the
// whole text at once, longest first.
func reference(s *Set, text string) string {
	var pairs []string
	for _, f := range s.forms {
		pairs = append(pairs, f, Mark)
	}
	if len(pairs) == 0 {
		return text
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// writeSplit writes text through a Writer in pieces cut at cuts, then
// flushes.
func writeSplit(t testing.TB, s *Set, text string, cuts []int) string {
	var out bytes.Buffer
	w := NewWriter(&out, s)
	last := 0
	for _, c := range cuts {
		if c < last || c > len(text) {
			continue
		}
		if _, err := w.Write([]byte(text[last:c])); err != nil {
			t.Fatal(err)
		}
		last = c
	}
	if _, err := w.Write([]byte(text[last:])); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestWriterSplitSecrets(t *testing.T) {
	const secret = "s3cr3t-VALUE-42"
	s := NewSet()
	s.Add(secret)
	text := "error: bad client_secret=" + secret + " (and again: " + secret + ")\n"
	want := strings.ReplaceAll(text, secret, Mark)
	// Every way of cutting the text in two, and one byte at a time.
	for i := 0; i <= len(text); i++ {
		if got := writeSplit(t, s, text, []int{i}); got != want {
			t.Fatalf("cut at %d: %q", i, got)
		}
	}
	var every []int
	for i := range len(text) {
		every = append(every, i)
	}
	if got := writeSplit(t, s, text, every); got != want {
		t.Fatalf("a byte at a time: %q", got)
	}
}

func TestForms(t *testing.T) {
	const secret = `a+b/c"d&e<f g%h\i`
	s := NewSet()
	s.Add(secret)
	js, _ := json.Marshal(map[string]string{"message": "echo: " + secret})
	for _, text := range []string{
		"plain " + secret,
		string(js),                    // JSON, HTML-escaped (json.Marshal)
		`{"m":"a+b/c\"d&e<f g%h\\i"}`, // JSON, not HTML-escaped
		"form client_secret=" + url.QueryEscape(secret) + "&x=1", // client_secret_post echoed
		fmt.Sprintf("quoted %q", secret),
	} {
		got := writeSplit(t, s, text, []int{len(text) / 2})
		if !strings.Contains(got, Mark) || strings.Contains(got, "d&e") || strings.Contains(got, `d\u0026e`) || strings.Contains(got, "c%22d") {
			t.Errorf("%s\n→ %s", text, got)
		}
	}
}

// TestFormsPrinted: a message is made one line before it reaches the
// Writer (runs of whitespace one space, controls stripped); a secret with
// those in it is still recognized there, as is and inside the --json
// error object, by a Set told so.
func TestFormsPrinted(t *testing.T) {
	const secret = "two  spaces\tand\x1b a tab"
	s := NewSet(textsafe.Shown()...)
	s.Add(secret)
	// A message or note (one line), and a --verbose trace line (controls
	// stripped, whitespace kept).
	for _, shown := range []func(string) string{textsafe.OneLine, textsafe.StripControl} {
		line := shown("refused: client secret " + secret + " is wrong")
		want := strings.Replace(line, shown(secret), Mark, 1)
		for _, c := range [][2]string{{line, want}, {jsonMessage(line), jsonMessage(want)}} {
			if got := writeSplit(t, s, c[0], []int{len(c[0]) / 2}); got != c[1] {
				t.Errorf("%s\n→ %s\nwant %s", c[0], got, c[1])
			}
		}
	}
}

func TestShortSecretsIgnored(t *testing.T) {
	s := NewSet()
	s.Add("", "a", "1234567")
	if got := s.String("a 1234567 b"); got != "a 1234567 b" {
		t.Errorf("short secrets redacted: %q", got)
	}
	var none *Set
	none.Add("long-enough-secret")
	if got := none.String("long-enough-secret"); got != "long-enough-secret" {
		t.Errorf("nil set: %q", got)
	}
}

func TestLongestWins(t *testing.T) {
	s := NewSet()
	s.Add("abcdefgh", "abcdefghijkl")
	for _, text := range []string{"xabcdefghijkly", "xabcdefghijy", "abcdefgh", "abcdefghij"} {
		want := reference(s, text)
		for i := 0; i <= len(text); i++ {
			if got := writeSplit(t, s, text, []int{i}); got != want {
				t.Errorf("%q cut at %d: %q, want %q", text, i, got, want)
			}
		}
	}
}

// TestHeldBackIsBounded: a writer holds back at most a secret's length,
// whatever is written: an endless stderr stays streamed.
func TestHeldBackIsBounded(t *testing.T) {
	s := NewSet()
	s.Add(strings.Repeat("a", 64) + "Z")
	var out bytes.Buffer
	w := NewWriter(&out, s)
	chunk := []byte(strings.Repeat("a", 4096))
	for range 1000 {
		w.Write(chunk)
		if len(w.pending) >= 65 {
			t.Fatalf("%d bytes held back", len(w.pending))
		}
	}
	if out.Len() < 1000*4096-64 {
		t.Fatalf("only %d bytes written", out.Len())
	}
	w = NewWriter(io.Discard, s)
	got := memtest.Allocated(func() {
		for range 1000 {
			w.Write(chunk)
		}
	})
	if got > 1<<20 {
		t.Errorf("4 MB written through allocates %d bytes", got)
	}
}

func TestContext(t *testing.T) {
	s := NewSet()
	ctx := NewContext(context.Background(), s)
	Add(ctx, "from-the-context")
	Add(context.Background(), "nowhere-to-go")
	if got := s.String("from-the-context nowhere-to-go"); got != Mark+" nowhere-to-go" {
		t.Errorf("%q", got)
	}
}

func FuzzWriter(f *testing.F) {
	f.Add("s3cret-xyz", "a s3cret-xyz b s3cr", uint16(3), uint16(12))
	f.Add("aaaaaaaa", "aaaaaaaaaaaaaaaaa", uint16(1), uint16(9))
	f.Add(`q"u/o+t e&`, `{"m":"q\"u/o+t e\u0026"} q%22u%2Fo%2Bt+e%26`, uint16(5), uint16(20))
	f.Fuzz(func(t *testing.T, secret, text string, a, b uint16) {
		s := NewSet()
		s.Add(secret)
		want := reference(s, text)
		if len(s.forms) == 1 && want != strings.ReplaceAll(text, secret, Mark) {
			t.Fatalf("the reference is not ReplaceAll")
		}
		if got := writeSplit(t, s, text, []int{int(a), int(b)}); got != want {
			t.Fatalf("secret %q text %q cuts %d %d:\n got %q\nwant %q", secret, text, a, b, got, want)
		}
		if got := s.String(text); got != want {
			t.Fatalf("String: %q, want %q", got, want)
		}
	})
}

// BenchmarkWriter is the cost of the stderr boundary per byte, with a few
// secrets registered: text that never starts one, and text made of near
// misses.
func BenchmarkWriter(b *testing.B) {
	s := NewSet()
	s.Add("ghp_0123456789abcdefghijABCDEFGHIJ", "client-secret-value", "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl")
	for _, c := range []struct{ name, text string }{
		{"plain", strings.Repeat("mcpc: trace: ← tools/call id=3 result, 3046914 bytes\n", 1000)},
		{"near-misses", strings.Repeat("ghp_0123 client- eyJhbG ", 2000)},
	} {
		b.Run(c.name, func(b *testing.B) {
			w := NewWriter(io.Discard, s)
			p := []byte(c.text)
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				w.Write(p)
			}
		})
	}
}

// jsonMessage is s in the --json error object's form (no HTML escaping).
func jsonMessage(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]string{"message": s})
	return strings.TrimSuffix(b.String(), "\n")
}
