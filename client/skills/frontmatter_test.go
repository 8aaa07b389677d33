package skills

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// hostileFrontmatter is SKILL.md text an attacker writes: aliases that
// expand a billion times, frontmatter of megabytes, nesting past every
// bound, a frontmatter that never closes.
func hostileFrontmatter() map[string]string {
	var laughs strings.Builder
	laughs.WriteString("---\nname: pdf\nl0: &l0 \"lol\"\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&laughs, "l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d,", i-1), 10), ","))
	}
	laughs.WriteString("---\n")
	return map[string]string{
		"laughs":    laughs.String(),
		"fat":       "---\nname: pdf\nx:\n" + strings.Repeat("  - aaaaaaaaaaaaa\n", 15<<20/18) + "---\n",
		"endless":   "---\n" + strings.Repeat("x: y\n", 3<<20),
		"one line":  "---\nname: " + strings.Repeat("a", 15<<20) + "\n---\n",
		"nested":    "---\nx: " + strings.Repeat("[", 60<<10) + "\n---\n",
		"flow map":  "---\nx: " + strings.Repeat("{a: ", 12<<10) + "\n---\n",
		"deep list": "---\n" + strings.Repeat("- ", 30<<10) + "x\n---\n",
	}
}

// Every hostile frontmatter is refused, in a few MiB: the size is checked
// before YAML runs, and no alias is followed.
func TestFrontmatterHostileIsBounded(t *testing.T) {
	for name, text := range hostileFrontmatter() {
		data := []byte(text)
		var err error
		n := memtest.Allocated(func() { _, err = Frontmatter(data) })
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
		if n > 16<<20 {
			t.Errorf("%s: allocated %d MiB, want under 16 MiB", name, n>>20)
		}
	}
	// The most nodes 64 KiB can hold, which is a frontmatter mcpc takes.
	wide := []byte("---\nname: pdf\nx: [" + strings.Repeat("a,", MaxFrontmatter/2-16) + "a]\n---\n")
	var err error
	if n := memtest.Allocated(func() { _, err = Frontmatter(wide) }); err != nil || n > 64<<20 {
		t.Errorf("wide: allocated %d MiB (%v), want under 64 MiB and no error", n>>20, err)
	}
}

// A refused frontmatter is its own failure, exit 5, naming the skill and
// what to do; not the mismatch of a skill changed since it was listed.
func TestFrontmatterRefusedNamesTheSkill(t *testing.T) {
	text := hostileFrontmatter()["laughs"]
	f := &fake{ext: `{}`, listing: []string{entry("pdf", `{"name":"pdf"}`, "skill://pdf/SKILL.md", text)},
		files: map[string]string{"skill://pdf/SKILL.md": text}}
	_, _, err := Get(t.Context(), f, "pdf", false, 1<<20)
	want := `skill "pdf" from server "fake" is refused: SKILL.md has frontmatter with a YAML alias (*l0, line 4), which mcpc does not expand`
	if err == nil || err.Error() != want || fail.CodeOf(err) != fail.Protocol {
		t.Fatalf("err = %v (%s), want %q", err, fail.CodeOf(err), want)
	}
	if h := fail.As(err).Hint; h != "mcpc reads frontmatter of at most 64KiB and expands no YAML aliases; nothing was written and no further file read: ask the skill's authors to write it plainly" {
		t.Errorf("hint = %q", h)
	}
}

func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndate: 2024-01-02\nn: 1.5\ntags: [x, y]\n---\nbody",
		"\ufeff---\r\nname: a\r\n---\r\n",
		"---\na: &x [1]\nb: *x\n---\n",
		"---\na: &x {k: 1}\nb:\n  <<: *x\n---\n",
		"---\n[[[[{a: [b, {c: d}]}]]]]\n---\n",
		"---\n? [a]\n: b\n---\n",
		"---\na: !!binary aGVsbG8=\nb: !!set {x, y}\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Frontmatter(data)
		var r refused
		switch {
		case err == nil && m == nil:
			t.Fatalf("Frontmatter(%q): no error and no mapping", data)
		case errors.As(err, &r) && !strings.Contains(err.Error(), "alias") && len(data) <= MaxFrontmatter:
			t.Fatalf("Frontmatter(%q) refused %d bytes as too large: %v", data, len(data), err)
		}
	})
}
