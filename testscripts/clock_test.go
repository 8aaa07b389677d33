//go:build unix

package testscripts

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// A script's clock: how far it runs ahead of the system's, in the file
// $MCPC_TEST_CLOCK names. The script's OAuth servers read it, and so does
// mcpc's test build (commands/testhooks_on.go): a token expires when the
// script moves the clock on, not after a wait.
const clockFile = ".mcpc-clock"

// clockAhead is how far the clock in file runs ahead (0 for none).
func clockAhead(file string) time.Duration {
	b, _ := os.ReadFile(file)
	d, _ := time.ParseDuration(strings.TrimSpace(string(b)))
	return d
}

// clock DURATION: move the script's clock on by DURATION. From the first
// clock on, the script's mcpc is the test build (mcpc-testhooks), which
// reads the script's clock; a session holder it starts is too.
func cmdClock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: clock DURATION")
	}
	d, err := time.ParseDuration(args[0])
	if err != nil || d <= 0 {
		ts.Fatalf("clock: %q is not a positive duration", args[0])
	}
	file := ts.Getenv("MCPC_TEST_CLOCK")
	ts.Check(os.WriteFile(file, []byte((clockAhead(file)+d).String()+"\n"), 0o600))
	hooks := filepath.Join(binDir, "hooks")
	if path := ts.Getenv("PATH"); !strings.HasPrefix(path, hooks+string(os.PathListSeparator)) {
		ts.Setenv("PATH", hooks+string(os.PathListSeparator)+path)
	}
}
