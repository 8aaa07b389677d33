//go:build mcpc_testhooks

package commands

import (
	"os"
	"strings"
	"time"
)

// In a test build, MCPC_TEST_HOLDER_WRITE_WAIT=DURATION sets
// holderWriteWait, and MCPC_TEST_CLOCK=FILE makes the clock run ahead of
// the system's by the duration FILE holds (none while FILE is missing or
// empty): the test harness writes it to move time on, and each reading
// of the clock reads it, so a running session holder sees the move too.
func init() {
	holderWriteWait, _ = time.ParseDuration(os.Getenv("MCPC_TEST_HOLDER_WRITE_WAIT"))
	if path := os.Getenv("MCPC_TEST_CLOCK"); path != "" {
		clock = func() time.Time {
			b, _ := os.ReadFile(path)
			ahead, _ := time.ParseDuration(strings.TrimSpace(string(b)))
			return time.Now().Add(ahead)
		}
	}
}
