package testscripts

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// A run that must succeed: exec, or run 0, of mcpc (conditions first;
	// under rsscap's memory bound, or the build with test hooks, too).
	successfulRun = regexp.MustCompile(`^(\[[^\]]*\]\s*)*(exec|run 0) (rsscap (-v )?[0-9]+ )?mcpc(-testhooks)?\b`)
	// An assertion about the last run's output.
	outputAssertion = regexp.MustCompile(`^(\[[^\]]*\]\s*)*(!\s*)?(stdout|stderr|cmp|cmpenv)\b`)
	// One that says what stderr holds.
	stderrAssertion = regexp.MustCompile(`^(\[[^\]]*\]\s*)*((!\s*)?stderr|cmp(env)? stderr)\b`)
)

// Every successful mcpc run in a script says what it printed on stderr:
// nothing (! stderr .), or the note it prints (stderr '^mcpc: note: …$').
// A run that says nothing about stderr would pass with a new warning
// nobody asked for. The share is logged (go test -run StderrShare -v).
func TestScriptsStderrShare(t *testing.T) {
	// The peers' scripts too: their servers are real, and what they print
	// on mcpc's stderr is as much a change as mcpc's own.
	files, err := filepath.Glob("testdata/*/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	runs, asserted := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := scriptLines(string(data))
		for i, l := range lines {
			if !successfulRun.MatchString(strings.TrimSpace(l)) {
				continue
			}
			runs++
			if assertsStderr(lines[i+1:]) {
				asserted++
			} else {
				t.Errorf("%s:%d: a successful mcpc run says nothing about stderr: add ! stderr . or pin what it prints", f, i+1)
			}
		}
	}
	t.Logf("%d of %d successful mcpc runs assert what stderr holds (%d%%)", asserted, runs, 100*asserted/max(runs, 1))
}

// scriptLines are the script's lines, before its archived files.
func scriptLines(txtar string) []string {
	lines := strings.Split(txtar, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "-- ") && strings.HasSuffix(strings.TrimSpace(l), " --") {
			return lines[:i]
		}
	}
	return lines
}

// assertsStderr reports whether the assertions that follow a run (up to
// the next command) include one about stderr.
func assertsStderr(rest []string) bool {
	for _, l := range rest {
		l = strings.TrimSpace(l)
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case stderrAssertion.MatchString(l):
			return true
		case !outputAssertion.MatchString(l):
			return false
		}
	}
	return false
}
