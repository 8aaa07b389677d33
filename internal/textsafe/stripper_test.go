package textsafe

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// stripPieces runs s through a Stripper in pieces cut at cuts (offsets,
// taken modulo len(s)+1, in any order) and returns what it wrote.
func stripPieces(t testing.TB, s string, cuts []int) string {
	t.Helper()
	var out bytes.Buffer
	st := NewStripper(&out)
	at := 0
	for _, c := range cuts {
		c %= len(s) + 1
		if c < at {
			continue
		}
		if _, err := st.Write([]byte(s[at:c])); err != nil {
			t.Fatal(err)
		}
		at = c
	}
	if _, err := st.Write([]byte(s[at:])); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// everyByte cuts s into single bytes.
func everyByte(s string) []int {
	cuts := make([]int, len(s))
	for i := range cuts {
		cuts[i] = i
	}
	return cuts
}

// Every cut of every case of TestStripControl, one byte at a time too,
// gives StripControl's result.
func TestStripperSplitAnywhere(t *testing.T) {
	cases := []string{
		"\x1b[1;31mred\x1b[0m", "a\x1b[31\nb", "a\x1b[12;", "a\x1b]0;evil title\x07b",
		"a\x1b]8;;http://x.example/\x1b\\link\x1b]8;;\x1b\\b", "a\x1b]0;t\x1b[31mb",
		"a\x1bPx\x07y\x1b\\b", "a\x1b_Gf=100;AAAA\x1b\\b", "a\x1b]0;x\x18b", "a\x1b(Bb\x1b)0c",
		"ab\x1b", "a\x1bé", "a\x1b\x1b[31mb", "a\u009b31mb", "a\u009d0;title\u009cb",
		"a\u0090data\u009cb", "a\u009fdata\x1b\\b", "a\u0085b\u0080c", "a\x9b31mb", "a\x85b\x9dc",
		"one\r\ntwo\r\n", "a\x00b\x07c\x08d\x0be\x0cf\x7fg", "user\u202eexe.txt",
		"a\xffb\xc3(c", "a\xe4\xb8", "a\xf0\x9f\x99", "\xf0\x9f\x99\x82 smile \xe4\xb8\x96",
		"\x1b]0;\xc2\x9cafter", "\x1b]0;\xc2", "\u009d\xe4\xb8\x96\u009c!", "héllo 世界 🙂 \uFFFD",
	}
	for _, s := range cases {
		want := StripControl(s)
		for cut := 0; cut <= len(s); cut++ {
			if got := stripPieces(t, s, []int{cut}); got != want {
				t.Errorf("%q cut at %d: %q, want %q", s, cut, got, want)
			}
		}
		if got := stripPieces(t, s, everyByte(s)); got != want {
			t.Errorf("%q byte by byte: %q, want %q", s, got, want)
		}
	}
}

// A Stripper's writer failing stops it, and the error is kept.
func TestStripperWriteError(t *testing.T) {
	boom := errors.New("boom")
	st := NewStripper(failWriter{boom})
	if _, err := st.Write([]byte("text")); !errors.Is(err, boom) {
		t.Fatalf("Write: %v", err)
	}
	if err := st.Flush(); !errors.Is(err, boom) {
		t.Fatalf("Flush: %v", err)
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

// An unterminated control string is dropped as it arrives: the Stripper
// holds at most a partial rune, whatever the size of the text.
func TestStripperHoldsNoString(t *testing.T) {
	st := NewStripper(io.Discard)
	st.Write([]byte("\x1b]0;"))
	piece := []byte(strings.Repeat("title ", 10000) + "\xe4")
	for range 100 {
		st.Write(piece)
	}
	if st.nhold != 1 || st.state != stringState {
		t.Errorf("held %d bytes in state %d", st.nhold, st.state)
	}
}

// FuzzStripper compares the Stripper, fed s cut at two arbitrary points
// and then one byte at a time, with StripControl on the whole.
func FuzzStripper(f *testing.F) {
	for _, s := range []string{
		"plain", "\x1b[31mred\x1b[0m", "\x1b]0;t\x07", "\x1bPq\x1b\\", "\u009b1m",
		"\x9b1m", "a\r\nb\rc", "\u202eabc", "\xff\xfe", "\x1b", "\x1b[", "\u009d",
		"\xc2\x9c", "\xe2\x80\xae", "\t\n\x00\x7f", "\x1b]0;\xc2\x9cx", "\xf0\x9f\x99\x82",
	} {
		f.Add(s, uint16(1), uint16(3))
	}
	f.Fuzz(func(t *testing.T, s string, a, b uint16) {
		want := StripControl(s)
		if got := stripPieces(t, s, []int{int(a), int(b)}); got != want {
			t.Fatalf("%q cut at %d, %d: %q, want %q", s, a, b, got, want)
		}
		if got := stripPieces(t, s, everyByte(s)); got != want {
			t.Fatalf("%q byte by byte: %q, want %q", s, got, want)
		}
	})
}

// BenchmarkStripper strips 1 MiB in 64 KiB pieces, as text mode does.
func BenchmarkStripper(b *testing.B) {
	for _, c := range stripBenchTexts() {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			b.ReportAllocs()
			text := []byte(c.text)
			st := NewStripper(io.Discard)
			for b.Loop() {
				for p := text; len(p) > 0; {
					n := min(len(p), chunk)
					st.Write(p[:n])
					p = p[n:]
				}
				st.Flush()
			}
		})
	}
}
