package schemadiff

import "testing"

func TestLinesAndFails(t *testing.T) {
	changes := []Change{
		{Kind: Compatible, Object: "tool \x1b[31mred", Change: "added"},
		{Kind: Compatible, Object: "tool b", Path: "", Change: "title-changed"},
	}
	if got := string(Lines(changes)); got != "compatible: tool red: added\ncompatible: tool b: title changed\n" {
		t.Errorf("lines %q", got)
	}
	if Fails(changes, false) || !Fails(changes, true) || Fails(nil, true) {
		t.Error("compatible changes fail only a strict comparison")
	}
	if !Fails(append(changes, Change{Kind: Breaking}), false) {
		t.Error("a breaking change does not fail")
	}
}
