package textsafe

import "testing"

func TestClip(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello world", 8, "hello w…"},
		{"hello world", 7, "hello…"}, // no blank before the ellipsis
		{"日本語", 6, "日本語"},
		{"日本語", 5, "日本…"},
		{"日本語", 4, "日…"}, // a wide character is not split: one column stays empty
		{"👩‍💻👩‍💻", 3, "👩‍💻…"},
		{"abc", 1, "…"},
	} {
		if got := Clip(c.in, c.n); got != c.want || Width(got) > c.n {
			t.Errorf("Clip(%q, %d) = %q (width %d), want %q", c.in, c.n, got, Width(got), c.want)
		}
	}
}
