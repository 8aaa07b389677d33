package man_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"testing"

	"github.com/mcpc-dev/mcpc/commands"
	"github.com/mcpc-dev/mcpc/man/render"
)

var update = flag.Bool("update", false, "rewrite mcpc.1 from the command tree")

// The committed page is what the command tree renders to; after changing a
// command, run: go test ./man -update
func TestPageIsCurrent(t *testing.T) {
	page, err := render.Render(commands.ManSource())
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("mcpc.1", page, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile("mcpc.1")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(page, committed) {
		t.Fatalf("man/mcpc.1 is stale: run go test ./man -update and commit the result")
	}
}

// groff, warning about everything, must find nothing to warn about.
func TestPageHasNoGroffWarnings(t *testing.T) {
	if _, err := exec.LookPath("groff"); err != nil {
		t.Fatal("groff not found: install groff-base (.ci/run does)")
	}
	cmd := exec.Command("groff", "-ww", "-z", "-man", "mcpc.1")
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("groff -ww -z -man mcpc.1: %v\n%s", err, out)
	}
}

// mcpc man prints the same page.
func TestManCommandPrintsThePage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	env := commands.Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	if code := commands.Main(t.Context(), []string{"mcpc", "man"}, env); code != 0 {
		t.Fatalf("mcpc man: exit %d: %s", code, stderr.String())
	}
	committed, err := os.ReadFile("mcpc.1")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stdout.Bytes(), committed) {
		t.Fatal("mcpc man differs from man/mcpc.1")
	}
}
