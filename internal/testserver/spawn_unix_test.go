//go:build unix

package testserver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFaultSpawnChild(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	cmd := exec.Command(serverBinary(t), "--fault", "spawn-child", "--pid-file", pidFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		stdin.Close()
		cmd.Wait()
	}()

	var server, child int
	deadline := time.Now().Add(testTimeout)
	for {
		data, _ := os.ReadFile(pidFile)
		if n, _ := fmt.Sscanf(string(data), "server %d\nchild %d\n", &server, &child); n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid file holds %q", data)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if server != cmd.Process.Pid {
		t.Errorf("server pid %d, want %d", server, cmd.Process.Pid)
	}
	if pgid, err := syscall.Getpgid(child); err != nil || pgid != cmd.Process.Pid {
		t.Fatalf("child %d: pgid %d, err %v; want group %d", child, pgid, err, cmd.Process.Pid)
	}

	// The server leaves on end of input; the grandchild stays until its
	// group is killed.
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("server exit: %v", err)
	}
	if !alive(child) {
		t.Fatalf("grandchild already gone")
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	for deadline := time.Now().Add(testTimeout); alive(child); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("grandchild survived SIGTERM to its group")
		}
	}
}

// alive reports whether pid runs. A zombie counts as dead: the orphaned
// grandchild is reaped by whatever init the machine has, maybe slowly.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no procfs: trust kill
	}
	// The state follows the parenthesized command name.
	i := strings.LastIndex(string(stat), ") ")
	return i < 0 || stat[i+2] != 'Z'
}
