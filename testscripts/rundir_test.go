//go:build unix

package testscripts

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Each run of this package keeps what it makes outside the scripts (the
// binaries, the suite's home and tmp, the keyring's home) in one directory
// of the system's temporary directory, which it holds locked while it
// runs: a directory whose lock can be taken belongs to a run that ended
// without removing it (killed, or timed out: go test's -timeout panics, and
// no deferred cleanup runs), and the next run removes it.
const (
	runPrefix = "mcpc-suite-"
	runLock   = ".lock"
)

// runLockFile is the open lock of this run's directory: its descriptor
// holds the lock until the process ends, however it ends.
var runLockFile *os.File

// newRunDir makes this run's directory, locked.
func newRunDir() (string, error) {
	root, err := os.MkdirTemp("", runPrefix)
	if err != nil {
		return "", err
	}
	// Locked under another name, then named: another run's sweep finds
	// no lock to take before it is held (a directory without one is no
	// run's).
	f, err := os.OpenFile(filepath.Join(root, runLock+".new"), os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err == nil {
		err = os.Rename(filepath.Join(root, runLock+".new"), filepath.Join(root, runLock))
	}
	if err != nil {
		os.RemoveAll(root)
		return "", fmt.Errorf("locking the run's directory: %v", err)
	}
	runLockFile = f
	return root, nil
}

// sweepRuns removes the directories of runs that are over, and stops the
// daemons such a run left running (dieWithUs stops them where the system
// can).
func sweepRuns() []string {
	killOrphanDaemons()
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), runPrefix+"*"))
	var removed []string
	for _, dir := range dirs {
		f, err := os.Open(filepath.Join(dir, runLock))
		if err != nil {
			continue // not a run's directory, or not ours to open
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			if os.RemoveAll(dir) == nil {
				removed = append(removed, dir)
			}
		}
		f.Close()
	}
	return removed
}

// hangChildEnv, set, makes the test binary a run that TestTimedOutRun
// times out: no binaries built, the keyring started, TestHangChild
// waiting for the timeout.
const hangChildEnv = "MCPC_TEST_HANG_CHILD"
