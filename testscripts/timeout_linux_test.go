package testscripts

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHangChild is the run TestTimedOutRun times out: it says where its
// directory is and which daemons it has, then waits.
func TestHangChild(t *testing.T) {
	if os.Getenv(hangChildEnv) == "" {
		t.Skip("run by TestTimedOutRun")
	}
	fmt.Printf("root %s\n", filepath.Dir(binDir))
	for pid := range ownedDaemons(os.Getpid()) {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		fmt.Printf("daemon %d %s\n", pid, strings.TrimSpace(string(comm)))
	}
	fmt.Println("waiting")
	time.Sleep(time.Hour)
}

// TestTimedOutRun: a run of this package that go test's -timeout ends
// (a panic: no deferred cleanup runs) leaves no daemon running, and the
// directory it could not remove is removed by the next run's start.
func TestTimedOutRun(t *testing.T) {
	if ok, err := scriptCondition("keyring"); !ok {
		if err != nil {
			t.Fatal(err)
		}
		t.Skip("no Secret Service to start: ", keyringErr)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHangChild$", "-test.timeout=5s")
	cmd.Env = append(os.Environ(), hangChildEnv+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var root string
	var daemons []int
	var names []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "root":
			root = f[1]
		case len(f) == 3 && f[0] == "daemon":
			pid, _ := strconv.Atoi(f[1])
			daemons, names = append(daemons, pid), append(names, f[2])
		}
	}
	err = cmd.Wait()
	t.Cleanup(func() { sweepRuns() })
	if !strings.Contains(stderr.String(), "panic: test timed out after 5s") {
		t.Fatalf("the run was not timed out: %v\n%s", err, stderr.String())
	}
	slices.Sort(names)
	if root == "" || !slices.Equal(names, []string{"dbus-daemon", "gnome-keyring-d"}) {
		t.Fatalf("the run reported directory %q and daemons %v, want a directory and dbus-daemon, gnome-keyring-d\n%s", root, names, stderr.String())
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, pid := range daemons {
		for syscall.Kill(pid, 0) == nil && !zombie(pid) {
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("daemon %d still running 20s after its run timed out", pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("the timed-out run's directory: %v (a run that times out cannot remove it: the next one does)", err)
	}
	if removed := sweepRuns(); !slices.Contains(removed, root) {
		t.Errorf("the next run's start removed %v, not %s", removed, root)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("%s: %v after the next run's start, want it gone", root, err)
	}
}
