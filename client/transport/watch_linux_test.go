package transport

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// hangGuard bounds a wait that should end at once: generous, never a
// measure of speed.
const hangGuard = 60 * time.Second

func startSleep(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

func TestWatchProcessEndsWithTheProcess(t *testing.T) {
	for _, poll := range []bool{false, true} {
		cmd := startSleep(t)
		pid := cmd.Process.Pid
		start := ProcessStart(pid)
		if start == "" {
			t.Fatalf("no start time for a running process %d", pid)
		}
		var gone <-chan struct{}
		if poll {
			c := make(chan struct{})
			go pollProcess(context.Background(), pid, start, c)
			gone = c
		} else {
			gone = WatchProcess(context.Background(), pid, start)
		}
		select {
		case <-gone:
			t.Fatalf("poll=%v: gone while the process runs", poll)
		case <-time.After(300 * time.Millisecond):
		}
		// Killed, not yet reaped: a zombie counts as gone.
		cmd.Process.Kill()
		select {
		case <-gone:
		case <-time.After(hangGuard):
			t.Fatalf("poll=%v: not told of the exit", poll)
		}
	}
}

// A pid whose start differs is another process that took the pid: the
// one watched is gone.
func TestWatchProcessReusedPid(t *testing.T) {
	cmd := startSleep(t)
	select {
	case <-WatchProcess(context.Background(), cmd.Process.Pid, "1"):
	case <-time.After(hangGuard):
		t.Fatal("a reused pid was taken for the process watched")
	}
	cmd.Process.Kill()
	cmd.Wait()
	select {
	case <-WatchProcess(context.Background(), cmd.Process.Pid, ""):
	case <-time.After(hangGuard):
		t.Fatal("a reaped process was taken for running")
	}
}

// A process killed but not reaped still answers a signal: ProcessExited
// tells it apart, and ProcessStart no longer names it.
func TestProcessExitedZombie(t *testing.T) {
	cmd := startSleep(t)
	pid := cmd.Process.Pid
	if ProcessExited(pid) {
		t.Fatalf("a running process %d taken for exited", pid)
	}
	cmd.Process.Kill()
	deadline := time.Now().Add(hangGuard)
	for !ProcessExited(pid) {
		if time.Now().After(deadline) {
			t.Fatal("a killed, unreaped process not taken for exited")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s := ProcessStart(pid); s != "" {
		t.Fatalf("ProcessStart of a zombie = %q, want \"\"", s)
	}
	if ProcessExited(1 << 30) {
		t.Fatal("a pid that names no process taken for exited")
	}
}
