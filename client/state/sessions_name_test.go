package state

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// nameRE is the rule safeName keeps, written as regexps: the characters,
// and what Windows would take for a device or trim.
var (
	nameRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	deviceRE = regexp.MustCompile(`(?i)^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)|\.$`)
)

func ruleOf(name string) bool { return nameRE.MatchString(name) && !deviceRE.MatchString(name) }

func TestSafeName(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"pw", true},
		{"a", true},
		{"a.b_c-9", true},
		{"A.b_c-9", false},
		{"DB", false},
		{"db.", false},
		{"nul", false},
		{"com1.x", false},
		{"console", true},
		{"com10", true},
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
		if got := ruleOf(c.name); got != c.want {
			t.Errorf("the rule's regexp on %q = %v, want %v", c.name, got, c.want)
		}
	}
	s := &Sessions{dir: "d"}
	if got := s.id("pw"); got != "pw" {
		t.Errorf("id(pw) = %q", got)
	}
	if got := s.id("a/b"); !strings.HasPrefix(got, "_") || len(got) != 33 {
		t.Errorf("id(a/b) = %q, want _ and 32 hex digits", got)
	}
}

// FuzzSafeName keeps the loop and the regexp it replaced in agreement.
func FuzzSafeName(f *testing.F) {
	for _, s := range []string{"pw", "", ".x", "a-b", strings.Repeat("y", 64)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := safeName(name), ruleOf(name); got != want {
			t.Errorf("safeName(%q) = %v, the regexp says %v", name, got, want)
		}
	})
}

// TestSessionPathsApart: no two names share a directory, a lock file or a
// socket, whichever name takes the other's file name (a hashed directory's,
// a lock file's), on a file system that folds case too, and a record
// written under one is not read under the other.
func TestSessionPathsApart(t *testing.T) {
	s := NewSessions(t.TempDir(), "")
	hashed := s.id("../x")
	names := []string{"../x", hashed, "h-" + HashKey("../x")[:16], "db", "db.lock", lockDir, "x/../db", "DB", "Db", "db.", "NUL"}
	seen := map[string]string{}
	for _, n := range names {
		for _, p := range []string{s.Dir(n), filepath.Join(s.dir, lockDir, s.id(n)+".lock"), s.Socket(n)} {
			folded := strings.TrimRight(strings.ToLower(p), ".")
			if other, ok := seen[folded]; ok && other != n {
				t.Errorf("%q and %q share %s", n, other, p)
			}
			seen[folded] = n
		}
		if filepath.Dir(s.Dir(n)) != s.dir {
			t.Errorf("Dir(%q) = %s, not a directory of the store", n, s.Dir(n))
		}
	}
	for _, n := range names {
		if err := s.Write(&SessionRecord{Name: n, PID: 1}); err != nil {
			t.Fatal(err)
		}
		unlock, err := s.Lock(context.Background(), n)
		if err != nil {
			t.Fatalf("Lock(%q): %v", n, err)
		}
		unlock()
	}
	var listed []string
	for _, r := range s.List() {
		listed = append(listed, r.Name)
	}
	want := slices.Clone(names)
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Errorf("List = %q, want %q", listed, want)
	}
	s.Remove("../x")
	if s.Read(hashed) == nil || s.Read("../x") != nil {
		t.Errorf("removing ../x removed %q's record too, or kept its own", hashed)
	}
}
