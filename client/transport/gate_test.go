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
	var dropped int64
	lines := -1
	g.Release(func(n int64, l int) { dropped, lines = n, l; out.WriteString("NOTE\n") })
	tail := GateTail / len(line) * len(line) // the whole lines that fit
	if dropped != int64(held-GateHold-tail) || lines != tail/len(line) {
		t.Errorf("dropped %d before %d lines, want %d before %d", dropped, lines, held-GateHold-tail, tail/len(line))
	}
	if out.Len() != GateHold+1+5+tail || !bytes.Contains(out.Bytes(), []byte("x\nNOTE\nxxx")) || !bytes.HasSuffix(out.Bytes(), []byte("x\n")) {
		t.Errorf("passed on %d bytes, want %d: the start, the cut line ended, the note, the last lines", out.Len(), GateHold+1+5+tail)
	}
	g.Write([]byte("after\n"))
	if !bytes.HasSuffix(out.Bytes(), []byte("x\nafter\n")) {
		t.Errorf("after the release: %q", out.Bytes()[out.Len()-10:])
	}
	NewGate(&out).Release(func(int64, int) { t.Error("an empty gate dropped something") })
}

// One line past GateHold (a 3 MiB line): its start, the cut said, and
// none of its end (the tail holds no line's start); the lines after it
// are the last lines.
func TestGateOneLongLine(t *testing.T) {
	var out bytes.Buffer
	g := NewGate(&out)
	g.Write(bytes.Repeat([]byte("y"), 3*GateHold))
	var dropped int64
	g.Release(func(n int64, l int) {
		dropped = n
		if l != 0 {
			t.Errorf("%d last lines, want none", l)
		}
	})
	if dropped != 2*GateHold || out.Len() != GateHold+1 {
		t.Errorf("dropped %d, passed %d", dropped, out.Len())
	}
	out.Reset()
	g = NewGate(&out)
	g.Write(bytes.Repeat([]byte("y"), 3*GateHold))
	g.Write([]byte("\nlast words\n"))
	g.Release(func(n int64, l int) {
		dropped = n
		if l != 1 {
			t.Errorf("%d last lines, want 1", l)
		}
	})
	if dropped != 2*GateHold+1 || !bytes.HasSuffix(out.Bytes(), []byte("yyy\nlast words\n")) {
		t.Errorf("dropped %d, passed ...%q", dropped, out.Bytes()[out.Len()-20:])
	}
}

// What a Gate held when told it is the probe's noise is dropped on the
// release, over-size part and all (no cut to speak of); what comes after
// still passes, and what comes before the decision too is noise.
func TestGateDropsNoise(t *testing.T) {
	var out bytes.Buffer
	g := NewGate(&out)
	g.Write([]byte(strings.Repeat("w", GateHold) + "arning\n"))
	g.Noise(GateHold + int64(len("arning\nlate warning\n")))
	g.Write([]byte("late warning\n"))
	noted := false
	g.Release(func(int64, int) { noted = true })
	if noted || out.Len() != 0 {
		t.Errorf("released %q, a cut noted: %v; want nothing of the noise", out.String(), noted)
	}
	g.Write([]byte("after\n"))
	if out.String() != "after\n" {
		t.Errorf("after the release: %q", out.String())
	}
}

// The noise ends at its mark, wherever the mark falls: inside what was
// held (the rest passes on the release), or past it, in bytes that come
// after the release in one write with what follows them.
func TestGateNoiseEndsAtMark(t *testing.T) {
	var out bytes.Buffer
	g := NewGate(&out)
	g.Write([]byte("noise\nkept\n"))
	g.Noise(int64(len("noise\n")))
	g.Release(nil)
	if out.String() != "kept\n" {
		t.Errorf("mark inside the held bytes: passed %q, want %q", out.String(), "kept\n")
	}

	out.Reset()
	g = NewGate(&out)
	g.Write([]byte("start\n"))
	g.Noise(int64(len("start\nlate noise\n")))
	g.Release(nil)
	g.Write([]byte("late "))
	g.Write([]byte("noise\nafter\n"))
	if out.String() != "after\n" {
		t.Errorf("mark past the held bytes: passed %q, want %q", out.String(), "after\n")
	}
}
