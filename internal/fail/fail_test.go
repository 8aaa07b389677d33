package fail

import (
	"errors"
	"fmt"
	"testing"
)

func TestCodesAreUniqueAndMapped(t *testing.T) {
	seen := map[Code]bool{}
	for _, c := range Codes {
		if seen[c.Code] {
			t.Errorf("code %q listed twice", c.Code)
		}
		seen[c.Code] = true
		if c.Code.Exit() != c.Exit || c.Meaning == "" {
			t.Errorf("code %q: exit %d, meaning %q", c.Code, c.Code.Exit(), c.Meaning)
		}
	}
	if got := Code("no-such-code").Exit(); got != ExitConnection {
		t.Errorf("unknown code exits %d", got)
	}
}

func TestWrapAndAs(t *testing.T) {
	inner := errors.New("boom")
	e := Wrap(Protocol, inner, "h", "cannot %s", "read")
	if e.Error() != "cannot read: boom" || e.Hint != "h" || !errors.Is(e, inner) {
		t.Fatalf("Wrap = %#v", e)
	}
	outer := fmt.Errorf("context: %w", e)
	if As(outer) != e || CodeOf(outer) != Protocol || CodeOf(inner) != "" {
		t.Fatalf("As/CodeOf through a wrapper failed")
	}
}
