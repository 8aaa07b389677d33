package textsafe

import (
	"strings"
	"testing"
)

func TestTracer(t *testing.T) {
	var b strings.Builder
	Tracer(&b)("era \x1b[31mdecided\x1b[0m")
	if got, want := b.String(), "mcpc: trace: era decided\n"; got != want {
		t.Errorf("trace = %q, want %q", got, want)
	}
}
