package state

import (
	"regexp"
	"strings"
	"testing"
)

// nameRE is the rule safeName keeps, written as the regexp it replaced.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

func TestSafeName(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"pw", true},
		{"a", true},
		{"A.b_c-9", true},
		{strings.Repeat("x", 64), true},
		{strings.Repeat("x", 65), false},
		{"", false},
		{".hidden", false},
		{"-flag", false},
		{"_x", false},
		{"a/b", false},
		{"..", false},
		{"a b", false},
		{"é", false},
		{"a\n", false},
	} {
		if got := safeName(c.name); got != c.want {
			t.Errorf("safeName(%q) = %v, want %v", c.name, got, c.want)
		}
		if got := nameRE.MatchString(c.name); got != c.want {
			t.Errorf("the rule's regexp on %q = %v, want %v", c.name, got, c.want)
		}
	}
	s := &Sessions{dir: "d"}
	if got := s.id("pw"); got != "pw" {
		t.Errorf("id(pw) = %q", got)
	}
	if got := s.id("a/b"); !strings.HasPrefix(got, "h-") || len(got) != 18 {
		t.Errorf("id(a/b) = %q, want h- and 16 hex digits", got)
	}
}

// FuzzSafeName keeps the loop and the regexp it replaced in agreement.
func FuzzSafeName(f *testing.F) {
	for _, s := range []string{"pw", "", ".x", "a-b", strings.Repeat("y", 64)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := safeName(name), nameRE.MatchString(name); got != want {
			t.Errorf("safeName(%q) = %v, the regexp says %v", name, got, want)
		}
	})
}
