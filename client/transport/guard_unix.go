//go:build unix

package transport

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// GuardCommand is the hidden command line of a server's guard: mcpc
// itself, started beside a session's server (Process.Guard).
const GuardCommand = "__guard"

// Guard starts a guard of the server's process group: a process of its
// own (mcpc again, GuardCommand) that reads a pipe this process holds
// the other end of, and stops the group (EndGroup) when that pipe closes
// without a word. A holder killed outright closes it; the parent-death
// signal kills the server itself, but not what the server started (npx's
// node, a worker), which would run on for good. Stop ends the guard
// first, once the group is gone: a guard never outlives a clean end, so
// it never signals a group number taken again.
func (p *Process) Guard() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, GuardCommand, strconv.Itoa(p.tree.pgid), ProcessStart(p.PID()))
	// Nothing of the holder's: no environment (it may carry secrets), no
	// stdout (the starter reads the holder's to its end), a group of its
	// own (a signal to the holder's group leaves the guard to do its work).
	cmd.Env = []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	live.mu.Lock()
	err = cmd.Start()
	if err == nil {
		p.guard, p.guardIn = cmd, in
	}
	live.mu.Unlock()
	return err
}

// unguard ends the guard of a server whose group is gone.
func (p *Process) unguard() {
	live.mu.Lock()
	g, in := p.guard, p.guardIn
	live.mu.Unlock()
	if g == nil {
		return
	}
	g.Process.Kill()
	g.Wait()
	in.Close()
}

// Group is the server's process group id.
func (p *Process) Group() int { return p.tree.pgid }

// Guarding reports whether args are a guard's (GuardCommand).
func Guarding(args []string) bool { return len(args) == 4 && args[1] == GuardCommand }

// RunGuard is the guard Process.Guard starts: it waits for in to close,
// then stops what is left of the group args name. Its exit status says
// only whether args were a guard's.
func RunGuard(in io.Reader, args []string) int {
	pgid, err := strconv.Atoi(args[2])
	if err != nil || pgid <= 1 {
		return 2
	}
	io.Copy(io.Discard, in)
	EndGroup(pgid, args[3])
	return 0
}

// EndGroup stops what is left of process group pgid, whose leader (a
// server) started at leaderStart (ProcessStart; "" where unknown), and
// reports whether anything was left. A group number is not handed out
// again while a process is in the group, and a new group would be led by
// a new process of that pid: one that runs with another start says the
// group is gone and the number another's, and nothing is signalled.
func EndGroup(pgid int, leaderStart string) bool {
	if pgid <= 1 {
		return false
	}
	if start := ProcessStart(pgid); start != "" && start != leaderStart {
		return false
	}
	if !groupLive(pgid) || syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return false
	}
	for deadline := time.Now().Add(termGrace); time.Now().Before(deadline) && groupLive(pgid); {
		time.Sleep(10 * time.Millisecond)
	}
	if start := ProcessStart(pgid); groupLive(pgid) && (start == "" || start == leaderStart) {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
	return true
}

// EndRecordedGroup is EndGroup for a group a record names, found after
// its holder is gone (session stop, a new start): only where the
// leader's start was recorded (Linux), since a record can outlive its
// group for days, and a number from a system that cannot tell its
// processes apart (ProcessStart "") might be anyone's by then.
func EndRecordedGroup(pgid int, leaderStart string) bool {
	return leaderStart != "" && EndGroup(pgid, leaderStart)
}
