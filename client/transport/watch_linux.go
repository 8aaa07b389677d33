package transport

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// procStat returns the fields of /proc/PID/stat after the command name
// (which may hold spaces and parentheses): fields[0] is the state,
// fields[19] the start time in clock ticks since boot.
func procStat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// ProcessStart names the start of process pid, so that a pid reused by
// another process is told apart: its start time since boot ("" when it
// is gone or has exited).
func ProcessStart(pid int) string {
	f := procStat(pid)
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return ""
	}
	return f[19]
}

// ProcessExited reports whether pid has exited but is not reaped yet (a
// zombie): its pid still answers a signal. False where /proc cannot
// tell.
func ProcessExited(pid int) bool {
	f := procStat(pid)
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

// ProcessStopped reports whether process pid is stopped: by a signal
// (SIGSTOP, a terminal's SIGTSTP) or a debugger. Such a process keeps
// its sockets, whose connections then wait for good.
func ProcessStopped(pid int) bool {
	f := procStat(pid)
	return len(f) > 0 && (f[0] == "T" || f[0] == "t")
}

// ProcessRSS is the resident memory of process pid in bytes, 0 when it
// cannot be read.
func ProcessRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

// WatchProcess returns a channel closed once process pid, which started
// at start (ProcessStart), has exited; at once when it is gone already
// or its pid now names another process. A pidfd is woken by the exit
// itself and is never confused by a reused pid; where pidfd_open is not
// available (before Linux 5.3, or refused by a seccomp filter) the
// process is polled, its start time telling a reused pid apart.
func WatchProcess(ctx context.Context, pid int, start string) <-chan struct{} {
	gone := make(chan struct{})
	fd, err := unix.PidfdOpen(pid, 0)
	switch {
	case errors.Is(err, unix.ESRCH):
		close(gone)
		return gone
	case err != nil:
		go pollProcess(ctx, pid, start, gone)
		return gone
	}
	// Opened before the start is compared: the pidfd is of the process
	// whose start matched, not of one that took its pid since.
	if ProcessStart(pid) != start {
		unix.Close(fd)
		close(gone)
		return gone
	}
	go func() {
		defer close(gone)
		defer unix.Close(fd)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for ctx.Err() == nil {
			n, err := unix.Poll(fds, 1000)
			if n > 0 || err != nil && !errors.Is(err, unix.EINTR) {
				return
			}
		}
	}()
	return gone
}

// pollProcess closes gone once pid no longer runs the process that
// started at start.
func pollProcess(ctx context.Context, pid int, start string, gone chan struct{}) {
	defer close(gone)
	for ProcessStart(pid) == start {
		select {
		case <-ctx.Done():
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// groupLive reports whether a process of group pgid runs: its zombies,
// which answer a signal until they are reaped (by whatever adopted them,
// perhaps never), do not count.
func groupLive(pgid int) bool {
	entries, _ := filepath.Glob("/proc/[0-9]*/stat")
	want := strconv.Itoa(pgid)
	for _, e := range entries {
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(e)))
		if f := procStat(pid); len(f) > 2 && f[2] == want && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}
