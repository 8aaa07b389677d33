package transport

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// BecomeSubreaper makes this process the reaper of its orphaned
// descendants: a server's grandchild that daemonizes (setsid, double fork)
// is re-parented to mcpc instead of to init, so teardown can still find
// and stop it. Call it once, before starting any server.
func BecomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// serverAttr starts a server in its own process group (so the whole tree
// can be signalled at once) with a parent-death signal: if mcpc is killed
// outright, the kernel kills the server it started.
func serverAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// stopOrphans stops every process re-parented to mcpc: descendants of a
// server that escaped its process group. mcpc's other children are the
// servers it still runs (several at once under mcpc list --check and mcpc
// grep), which children leaves out.
func stopOrphans() {
	orphans := children()
	if len(orphans) == 0 {
		return
	}
	for _, pid := range orphans {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(termGrace)
	for _, pid := range orphans {
		for time.Now().Before(deadline) {
			if wpid, _ := syscall.Wait4(pid, nil, syscall.WNOHANG, nil); wpid == pid {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		syscall.Kill(pid, syscall.SIGKILL)
		syscall.Wait4(pid, nil, 0, nil)
	}
}

// killOrphans is stopOrphans without the grace: SIGKILL at once.
func killOrphans() {
	for _, pid := range children() {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// children lists the live processes whose parent is mcpc, other than
// the servers it runs.
func children() []int {
	// Usually there are none, and waitid says so at once (ECHILD), where
	// the scan below reads a file per process on the machine: 10 ms of CPU
	// on a busy one, more than the rest of a warm call.
	var info unix.Siginfo
	if unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil) == unix.ECHILD {
		return nil
	}
	self := os.Getpid()
	// No server starts while the scan runs (StartProcess holds the lock).
	live.mu.Lock()
	defer live.mu.Unlock()
	running := map[int]bool{}
	for p := range live.m {
		running[p.cmd.Process.Pid] = true
		if p.guard != nil {
			running[p.guard.Process.Pid] = true // its guard, which is no orphan
		}
	}
	entries, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, e := range entries {
		b, err := os.ReadFile(e)
		if err != nil {
			continue
		}
		// Fields after the parenthesized command: state, ppid, ...
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == self {
			if pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(e))); !running[pid] {
				out = append(out, pid)
			}
		}
	}
	return out
}
