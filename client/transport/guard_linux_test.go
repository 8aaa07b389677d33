package transport

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestEndGroup: a group whose number is led by another process than the
// one recorded (its start differs) is left alone; the recorded one, and
// everything in it, is stopped.
func TestEndGroup(t *testing.T) {
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	defer cmd.Process.Kill()
	pid := cmd.Process.Pid
	if EndGroup(pid, "1") {
		t.Fatal("EndGroup signalled a group whose leader started at another time")
	}
	// A record without the leader's start (a system that cannot tell)
	// names a number that may be anyone's by now: nothing is signalled.
	if EndRecordedGroup(pid, "") {
		t.Fatal("EndRecordedGroup signalled a group its record could not prove")
	}
	if WaitFor(done, 0) {
		t.Fatal("the process of another start ended")
	}
	if !EndGroup(pid, ProcessStart(pid)) {
		t.Fatal("EndGroup found nothing to stop in a live group")
	}
	if !WaitFor(done, 30*time.Second) {
		t.Fatal("the group's process did not end")
	}
	if EndGroup(pid, "") || EndGroup(1, "") || EndGroup(0, "") {
		t.Fatal("EndGroup stopped a group that is gone, or init's")
	}
}
