package buildinfo

import (
	"runtime"
	"testing"
)

// TestStamped: what the release stamps in is what is printed.
func TestStamped(t *testing.T) {
	defer func(v, c string) { Version, Commit = v, c }(Version, Commit)
	Version, Commit = "v1.2.3", "0123456789ab"
	want := "mcpc v1.2.3\ncommit: 0123456789ab\ngo: " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\nmcp: 2026-07-28, 2025-11-25\n"
	if got := Text([]string{"2026-07-28", "2025-11-25"}); got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}

// TestUnstamped: a test binary records no module version and no revision.
func TestUnstamped(t *testing.T) {
	if Version != "" || Commit != "" {
		t.Skip("stamped build")
	}
	if Name() != "dev" || Revision() != "unknown" {
		t.Errorf("Name, Revision = %q, %q; want dev, unknown", Name(), Revision())
	}
}
