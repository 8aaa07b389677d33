//go:build mcpc_testhooks

package creds

import (
	"fmt"
	"os"
	"time"
)

// In a test build, MCPC_TEST_PAUSE_BEFORE_REFRESH=FILE makes the first
// process that reaches the token request (holding the refresh lock) create
// FILE with its PID and wait there for good, so that a test can SIGKILL it
// at that exact point. FILE is created exclusively: any later process that
// gets the lock goes on.
func init() {
	beforeRefresh = func() {
		path := os.Getenv("MCPC_TEST_PAUSE_BEFORE_REFRESH")
		if path == "" {
			return
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return
		}
		fmt.Fprintf(f, "%d\n", os.Getpid())
		f.Close()
		for {
			time.Sleep(time.Hour) // a timer, so the runtime sees no deadlock
		}
	}
}
