package fsx

import (
	"path/filepath"
	"testing"
)

func TestUnder(t *testing.T) {
	dir := t.TempDir()
	if got := Under(dir, "a/b.json"); got != filepath.Join(dir, "a", "b.json") {
		t.Errorf("relative: %s", got)
	}
	if abs := filepath.Join(dir, "x"); Under("elsewhere", abs) != abs {
		t.Error("an absolute name is not kept")
	}
}
