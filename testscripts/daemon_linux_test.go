package testscripts

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// ownerEnv marks the daemons the harness starts outside the scripts (the
// session buses, and the keyrings D-Bus starts on them, which inherit its
// environment) with the pid of the test process that owns them.
const ownerEnv = "MCPC_TEST_OWNER"

// dieWithUs makes cmd, a daemon, end with this test process however it
// ends: go test's -timeout panics past every deferred cleanup, and a
// SIGKILL runs none. The kernel sends the daemon SIGTERM when the thread
// that started it ends; Go's threads end only with the process (nothing
// here locks a goroutine to one and lets it exit). gnome-keyring leaves
// with its bus.
func dieWithUs(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	cmd.Env = append(slices.Clip(cmd.Env), daemonEnv()...)
}

// daemonEnv is what a daemon's environment gets to be known as ours.
func daemonEnv() []string { return []string{fmt.Sprintf("%s=%d", ownerEnv, os.Getpid())} }

// ownedDaemons lists the processes marked as owner's daemons (owner 0:
// anyone's), with their owners.
func ownedDaemons(owner int) map[int]int {
	out := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || zombie(pid) {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, []byte(ownerEnv+"=")); ok {
				if o, err := strconv.Atoi(string(v)); err == nil && (owner == 0 || o == owner) {
					out[pid] = o
				}
			}
		}
	}
	return out
}

// killOrphanDaemons kills the daemons whose owner is gone, should one have
// outlived it all the same.
func killOrphanDaemons() {
	for pid, owner := range ownedDaemons(0) {
		if syscall.Kill(owner, 0) == syscall.ESRCH {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
