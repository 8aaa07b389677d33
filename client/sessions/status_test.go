//go:build linux

package sessions

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// TestLookHolder: what session list says of a holder comes from what is
// known of it, not from a missed answer: one that answers runs; one whose
// socket's connections wait unaccepted is busy; one that took the
// connection and says nothing is not answering (hung), an error to
// start another beside (exit 5, naming it); one whose process is gone
// is gone, and is not asked.
func TestLookHolder(t *testing.T) {
	self := &state.SessionRecord{Name: "s", PID: os.Getpid(), HolderStart: transport.ProcessStart(os.Getpid())}
	cases := []struct {
		name, status string
		serve        func(t *testing.T, path string) *atomic.Int64
		pid          int
		alive        bool
		hung         string // holderAlive's error
	}{
		{name: "answers", status: StatusRunning, serve: answering, alive: true},
		{name: "busy", status: StatusBusy, serve: neverAccepting, alive: true},
		{name: "hung", status: StatusNotAnswering, serve: silent,
			hung: "session s's holder (pid " + strconv.Itoa(os.Getpid()) + ") does not answer (hung)"},
		{name: "gone", status: StatusGone, serve: answering, pid: exitedPID(t)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := *self
			rec.Socket = filepath.Join(t.TempDir(), "h.sock")
			if c.pid != 0 {
				rec.PID, rec.HolderStart = c.pid, "1"
			}
			accepted := c.serve(t, rec.Socket)
			if l := lookHolder(context.Background(), &rec); l.status != c.status {
				t.Fatalf("status %q (%s), want %q", l.status, l.why, c.status)
			}
			alive, err := holderAlive(context.Background(), &rec)
			if alive != c.alive || (err == nil) != (c.hung == "") {
				t.Fatalf("holderAlive = %v, %v", alive, err)
			}
			if f := fail.As(err); c.hung != "" && (f == nil || f.Msg != c.hung || fail.CodeOf(err).Exit() != fail.ExitConnection) {
				t.Fatalf("holderAlive's error = %v, want %q, exit 5", err, c.hung)
			}
			if c.status == StatusGone && accepted.Load() != 0 {
				t.Fatal("a gone holder's socket was asked")
			}
		})
	}
}

// neverAccepting listens at path and takes no connection: a holder whose
// slots are all taken.
func neverAccepting(t *testing.T, path string) *atomic.Int64 {
	ln, err := transport.ListenSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return new(atomic.Int64)
}

// silent takes every connection at path and says nothing: a hung holder.
func silent(t *testing.T, path string) *atomic.Int64 {
	ln, err := transport.ListenSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	n := new(atomic.Int64)
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return n
}

// exitedPID is the pid of a process that has exited and been reaped.
func exitedPID(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
