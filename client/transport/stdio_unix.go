//go:build unix

package transport

import (
	"os/exec"
	"syscall"
	"time"
)

// tree is a stdio server's process group: serverAttr makes the server its
// leader, and what the server starts (npx → node, uvx → python) joins it.
type tree struct{ pgid int }

// contain returns the tree of a server just started with serverAttr.
func contain(cmd *exec.Cmd) (*tree, error) { return &tree{pgid: cmd.Process.Pid}, nil }

// terminate asks the whole group to stop.
func (t *tree) terminate() { syscall.Kill(-t.pgid, syscall.SIGTERM) }

// kill stops the whole group at once.
func (t *tree) kill() { syscall.Kill(-t.pgid, syscall.SIGKILL) }

// release stops what is left of the group once its leader has exited:
// members of the group (grandchildren) may still run. Ask them to leave,
// give them grace, then make sure.
func (t *tree) release(grace time.Duration) {
	pgid := t.pgid
	if syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) && syscall.Kill(-pgid, 0) == nil {
		// As subreaper mcpc inherits the group's orphans; their
		// zombies would keep the group "alive" until reaped.
		for {
			if pid, _ := syscall.Wait4(-pgid, nil, syscall.WNOHANG, nil); pid <= 0 {
				break
			}
		}
		if syscall.Kill(-pgid, 0) != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	for {
		if pid, _ := syscall.Wait4(-pgid, nil, syscall.WNOHANG, nil); pid <= 0 {
			break
		}
	}
}
