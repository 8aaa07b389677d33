package suggest

import (
	"fmt"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/memtest"
)

func TestClosest(t *testing.T) {
	cands := []string{"github", "gitlab", "linear", "timeout"}
	for s, want := range map[string]string{
		"githb":   "github",  // one edit
		"gitlba":  "gitlab",  // two edits
		"TIMEOUT": "timeout", // case only, however far in edits
		"slack":   "",        // nothing near
		"":        "",
	} {
		if got := Closest(s, cands); got != want {
			t.Errorf("Closest(%q) = %q, want %q", s, got, want)
		}
	}
	if got := Hint("githb", cands, "configured servers: …"); got != `did you mean "github"? configured servers: …` {
		t.Errorf("Hint = %q", got)
	}
	if got := Hint("slack", cands, "configured servers: …"); got != "configured servers: …" {
		t.Errorf("Hint without a match = %q", got)
	}
}

// A miss among 50,000 tool names costs buffers for one distance, not a
// few slices per candidate (it was most of such a miss's memory).
func TestClosestManyCandidatesBounded(t *testing.T) {
	cands := make([]string, 50_000)
	for i := range cands {
		cands[i] = fmt.Sprintf("tool-%06d", i)
	}
	var got string
	n := memtest.Allocated(func() { got = Closest("tool-0000x1", cands) })
	if got != "tool-000001" {
		t.Errorf("Closest = %q, want tool-000001", got)
	}
	if n > 64<<10 {
		t.Errorf("Closest over 50,000 names allocated %d bytes (at most 64 KiB)", n)
	}
}
