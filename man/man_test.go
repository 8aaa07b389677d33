package man_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"strings"
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

// Options read as they are typed: a value option shows its placeholder,
// not cli-docs' ="" (the empty string for every type), and a switch has
// no "(default: false)". And SECURITY says which servers outlive mcpc:
// a session's, and only when asked for.
func TestPageSaysWhatItMeans(t *testing.T) {
	page, err := os.ReadFile("mcpc.1")
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	for _, bad := range []string{`\fP="":`, "(default: false)", "no server outlives mcpc"} {
		if strings.Contains(text, bad) {
			t.Errorf("man/mcpc.1 has %q", bad)
		}
	}
	for _, want := range []string{`\fB--answer\fP \fIKEY=VALUE\fP: `, `\fB--max-bytes\fP \fIN\fP: `, `\fB--json\fP: print JSON (the default when stdout is not a terminal)` + "\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("man/mcpc.1 has no %q", want)
		}
	}
	i := strings.Index(text, ".SH SECURITY")
	j := strings.Index(text, ".SH SEE ALSO")
	if i < 0 || j < i {
		t.Fatal("man/mcpc.1 has no SECURITY section before SEE ALSO")
	}
	for _, want := range []string{`\fBmcpc session start\fP`, `\fBkeepAlive\fP`, `\fBmcpc session stop\fP`} {
		if !strings.Contains(text[i:j], want) {
			t.Errorf("SECURITY does not name %s, the way a server outlives mcpc", want)
		}
	}
}
