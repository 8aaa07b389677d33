//go:build unix

package transport

import (
	"os"
	"syscall"
	"testing"
)

// Stopping one server leaves the others mcpc runs alone: they are its
// children too, but not orphans (mcpc list --check and mcpc grep run
// several at once; the teardown of the first used to SIGTERM the rest).
func TestStopLeavesOtherServers(t *testing.T) {
	a, err := StartProcess([]string{"cat"}, os.Environ(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	b, err := StartProcess([]string{"cat"}, os.Environ(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Stop returns once the orphans it found are reaped: a is alive now,
	// or was taken for one.
	b.Stop()
	if err := syscall.Kill(a.cmd.Process.Pid, 0); err != nil {
		t.Fatalf("stopping one server stopped the other too: %v", err)
	}
}
