package transport

import (
	"bytes"
	"strings"
	"testing"
)

// A Gate holds GateHold bytes and counts what it drops past them; the
// cut line is ended, and after the release everything passes.
func TestGateCountsWhatItDrops(t *testing.T) {
	var out bytes.Buffer
	g := NewGate(&out)
	line := strings.Repeat("x", 999) + "\n"
	for range 3 * GateHold / len(line) {
		g.Write([]byte(line))
	}
	held := 3 * GateHold / len(line) * len(line)
	if dropped := g.Release(); dropped != int64(held-GateHold) {
		t.Errorf("dropped %d, want %d", dropped, held-GateHold)
	}
	if out.Len() != GateHold+1 || !bytes.HasSuffix(out.Bytes(), []byte("x\n")) {
		t.Errorf("passed on %d bytes ending %q, want %d ending with the cut line ended", out.Len(), out.Bytes()[out.Len()-2:], GateHold+1)
	}
	g.Write([]byte("after\n"))
	if !bytes.HasSuffix(out.Bytes(), []byte("x\nafter\n")) {
		t.Errorf("after the release: %q", out.Bytes()[out.Len()-10:])
	}
	if g := NewGate(&out); g.Release() != 0 {
		t.Error("an empty gate dropped something")
	}
}

// What a Gate held when told it is the probe's noise is dropped on the
// release, over-size part and all (no cut to speak of); what comes after
// still passes, and what comes before the decision too is noise.
func TestGateDropsNoise(t *testing.T) {
	var out bytes.Buffer
	g := NewGate(&out)
	g.Write([]byte(strings.Repeat("w", GateHold) + "arning\n"))
	g.Noise()
	g.Write([]byte("late warning\n"))
	if dropped := g.Release(); dropped != 0 || out.Len() != 0 {
		t.Errorf("released %q, %d dropped; want nothing of the noise", out.String(), dropped)
	}
	g.Write([]byte("after\n"))
	if out.String() != "after\n" {
		t.Errorf("after the release: %q", out.String())
	}
}
