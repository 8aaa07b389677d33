package testscripts

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// ranFile lists the conformance scenarios a script has run, one a line.
const ranFile = ".conformance-ran"

func noteConformanceRun(ts *testscript.TestScript, scenario string) {
	f, err := os.OpenFile(ts.MkAbs(ranFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	ts.Check(err)
	defer f.Close()
	_, err = f.WriteString(scenario + "\n")
	ts.Check(err)
}

// auth-coverage: every auth scenario the suite lists was run
// by this script, or is in conformance/auth-expected-failures.txt with a
// reason (and then was not run). A new scenario in a suite upgrade, or a
// stale entry, fails here.
func cmdConformanceAuthCoverage(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: auth-coverage")
	}
	node, suite := ts.Getenv("MCPC_NODE22"), ts.Getenv("MCPC_CONFORMANCE")
	if node == "" || suite == "" {
		ts.Fatalf("the npm peers are not installed: run .ci/peers")
	}
	out, err := exec.Command(node, suite, "list", "--client").Output()
	ts.Check(err)
	var listed []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "-" && strings.HasPrefix(f[1], "auth/") {
			listed = append(listed, f[1])
		}
	}
	if len(listed) == 0 {
		ts.Fatalf("the suite lists no auth scenarios:\n%s", out)
	}
	expected := map[string]string{}
	data, err := os.ReadFile(filepath.Join("conformance", "auth-expected-failures.txt"))
	ts.Check(err)
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, _ := strings.Cut(line, " ")
		if strings.TrimSpace(reason) == "" {
			ts.Fatalf("auth-expected-failures.txt: %s has no reason", name)
		}
		expected[name] = reason
	}
	ranData, _ := os.ReadFile(ts.MkAbs(ranFile))
	ran := strings.Fields(string(ranData))
	for _, name := range listed {
		_, exp := expected[name]
		switch {
		case exp && slices.Contains(ran, name):
			ts.Fatalf("%s is both run and expected to fail", name)
		case !exp && !slices.Contains(ran, name):
			ts.Fatalf("%s is neither run nor expected to fail (with a reason)", name)
		}
	}
	for name := range expected {
		if !slices.Contains(listed, name) {
			ts.Fatalf("auth-expected-failures.txt names %s, which the suite does not list", name)
		}
	}
	ts.Logf("%d auth scenarios: %d run, %d expected to fail", len(listed), len(listed)-len(expected), len(expected))
}
