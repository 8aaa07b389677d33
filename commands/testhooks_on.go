//go:build mcpc_testhooks

package commands

import (
	"os"
	"time"
)

// In a test build, MCPC_TEST_HOLDER_WRITE_WAIT=DURATION sets
// holderWriteWait.
func init() {
	holderWriteWait, _ = time.ParseDuration(os.Getenv("MCPC_TEST_HOLDER_WRITE_WAIT"))
}
