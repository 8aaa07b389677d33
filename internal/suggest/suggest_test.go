package suggest

import "testing"

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
