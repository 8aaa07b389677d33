package textsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStripControl(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello, world\n\tindented", "hello, world\n\tindented"},
		{"unicode kept", "héllo 世界 🙂 \uFFFD", "héllo 世界 🙂 \uFFFD"},
		{"empty", "", ""},

		{"csi colour", "\x1b[1;31mred\x1b[0m", "red"},
		{"csi cursor and erase", "a\x1b[2J\x1b[H\x1b[?25lb", "ab"},
		{"csi intermediate", "a\x1b[1 qb", "ab"},
		{"csi aborted by control", "a\x1b[31\nb", "a\nb"},
		{"csi unterminated", "a\x1b[12;", "a"},

		{"osc bel", "a\x1b]0;evil title\x07b", "ab"},
		{"osc st", "a\x1b]8;;http://x.example/\x1b\\link\x1b]8;;\x1b\\b", "alinkb"},
		{"osc 52 clipboard", "a\x1b]52;c;ZXZpbA==\x07b", "ab"},
		{"osc unterminated", "a\x1b]0;title", "a"},
		{"osc cut by esc", "a\x1b]0;t\x1b[31mb", "ab"},
		{"dcs", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"dcs not ended by bel", "a\x1bPx\x07y\x1b\\b", "ab"},
		{"apc", "a\x1b_Gf=100;AAAA\x1b\\b", "ab"},
		{"pm", "a\x1b^privacy\x1b\\b", "ab"},
		{"sos", "a\x1bXstring\x1b\\b", "ab"},
		{"string cancelled by can", "a\x1b]0;x\x18b", "ab"},

		{"two-byte esc", "a\x1bcb\x1b7c\x1b8d", "abcd"},
		{"esc charset", "a\x1b(Bb\x1b)0c", "abc"},
		{"lone esc at end", "ab\x1b", "ab"},
		{"esc before non-ascii", "a\x1bé", "aé"},
		{"double esc", "a\x1b\x1b[31mb", "ab"},

		{"c1 csi encoded", "a\u009b31mb", "ab"},
		{"c1 osc encoded", "a\u009d0;title\u009cb", "ab"},
		{"c1 dcs encoded", "a\u0090data\u009cb", "ab"},
		{"c1 apc encoded", "a\u009fdata\x1b\\b", "ab"},
		{"c1 other encoded", "a\u0085b\u0080c", "abc"},
		{"c1 csi raw byte", "a\x9b31mb", "ab"},
		{"c1 raw byte", "a\x85b\x9dc", "abc"},

		{"crlf", "one\r\ntwo\r\n", "one\ntwo\n"},
		{"lone cr", "progress 10%\rprogress 100%", "progress 10%progress 100%"},
		{"c0 controls", "a\x00b\x07c\x08d\x0be\x0cf\x7fg", "abcdefg"},

		{"bidi override", "user\u202eexe.txt", "userexe.txt"},
		{"bidi embeddings", "\u202aa\u202bb\u202cc\u202dd", "abcd"},
		{"bidi isolates", "\u2066a\u2067b\u2068c\u2069", "abc"},

		{"invalid utf8", "a\xffb\xc3(c", "a\uFFFDb\uFFFD(c"},
		{"truncated rune", "a\xe4\xb8", "a\uFFFD\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := StripControl(tt.in)
			if got != tt.want {
				t.Errorf("StripControl(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := StripControl(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestStripControlReturnsCleanInputUnchanged(t *testing.T) {
	s := strings.Repeat("clean text, ünïcödé\n", 100)
	if got := StripControl(s); got != s {
		t.Fatal("clean input changed")
	}
	if n := testing.AllocsPerRun(10, func() { StripControl(s) }); n != 0 {
		t.Errorf("clean input allocated %v times", n)
	}
}

func FuzzStripControl(f *testing.F) {
	for _, s := range []string{
		"plain", "\x1b[31mred\x1b[0m", "\x1b]0;t\x07", "\x1bPq\x1b\\", "\u009b1m",
		"\x9b1m", "a\r\nb\rc", "\u202eabc", "\xff\xfe", "\x1b", "\x1b[", "\u009d",
		"\xc2\x9c", "\xe2\x80\xae", "\t\n\x00\x7f",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := StripControl(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 in %q", out)
		}
		for i := 0; i < len(out); i++ {
			c := out[i]
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				t.Fatalf("control byte %#x at %d in %q", c, i, out)
			}
		}
		for _, r := range out {
			if (r >= 0x80 && r <= 0x9f) || isBidiControl(r) {
				t.Fatalf("control rune %U in %q", r, out)
			}
		}
		if again := StripControl(out); again != out {
			t.Fatalf("not idempotent: %q -> %q", out, again)
		}
	})
}
