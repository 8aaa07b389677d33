package schemadiff

import "testing"

func TestLineAndFails(t *testing.T) {
	changes := []Change{
		{Kind: Compatible, Object: "tool \x1b[31mred", Change: "added"},
		{Kind: Compatible, Object: "tool b", Path: "", Change: "title-changed"},
	}
	if got := Line(changes[0]) + Line(changes[1]); got != "compatible: tool red: added\ncompatible: tool b: title changed\n" {
		t.Errorf("lines %q", got)
	}
	some := Summary{Changes: 2}
	if some.Fails(false) || !some.Fails(true) || (Summary{}).Fails(true) {
		t.Error("compatible changes fail only a strict comparison")
	}
	if !(Summary{Changes: 3, Breaking: true}).Fails(false) {
		t.Error("a breaking change does not fail")
	}
}

// TestDiffEachSummary: each object's changes are handed on as found, in
// Diff's order, and the summary counts them and sees a breaking one.
func TestDiffEachSummary(t *testing.T) {
	old := &Snapshot{Tools: []Tool{{Name: "a", Title: "A"}, {Name: "b"}}}
	new := &Snapshot{Tools: []Tool{{Name: "a", Title: "A2"}, {Name: "c"}}}
	var got []string
	sum, err := DiffEach(t.Context(), old, new, func(cs []Change) error {
		for _, c := range cs {
			got = append(got, Line(c))
		}
		return nil
	})
	want := []string{"compatible: tool a: title changed\n", "breaking: tool b: removed\n", "compatible: tool c: added\n"}
	if err != nil || sum != (Summary{Changes: 3, Breaking: true}) || len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("DiffEach: %v %+v %q", err, sum, got)
	}
}
