package transport

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SocketBacklog counts the connections that wait, not yet accepted, on
// the listener at a path, long or short: one taken leaves the count.
func TestSocketBacklog(t *testing.T) {
	for _, long := range []bool{false, true} {
		dir := t.TempDir()
		if long {
			// Past a socket address's 108 bytes: reached through the
			// directory's descriptor, found by the file all the same.
			dir = filepath.Join(dir, strings.Repeat("d", 100))
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(dir, "h.sock")
		ln, err := ListenSocket(path)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		if n, ok := SocketBacklog(path); !ok || n != 0 {
			t.Fatalf("long=%v: backlog of an idle listener = %d, %v; want 0, true", long, n, ok)
		}
		for range 3 {
			c, err := DialUnix(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
		}
		if n, ok := SocketBacklog(path); !ok || n != 3 {
			t.Fatalf("long=%v: backlog = %d, %v; want 3, true", long, n, ok)
		}
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		if n, ok := SocketBacklog(path); !ok || n != 2 {
			t.Fatalf("long=%v: backlog after one accepted = %d, %v; want 2, true", long, n, ok)
		}
	}
	// No listener: not known, never 0.
	path := filepath.Join(t.TempDir(), "none.sock")
	if n, ok := SocketBacklog(path); ok {
		t.Fatalf("backlog of no socket = %d, true", n)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if n, ok := SocketBacklog(path); ok {
		t.Fatalf("backlog of a socket no one listens on = %d, true", n)
	}
}

// ProcessStopped is true of a process under SIGSTOP, and false again
// once it continues.
func TestProcessStopped(t *testing.T) {
	cmd := startSleep(t)
	pid := cmd.Process.Pid
	if ProcessStopped(pid) {
		t.Fatal("a sleeping process is taken for stopped")
	}
	waitState := func(stopped bool) {
		t.Helper()
		for deadline := time.Now().Add(hangGuard); ProcessStopped(pid) != stopped; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("ProcessStopped(%d) is not %v", pid, stopped)
			}
		}
	}
	syscall.Kill(pid, syscall.SIGSTOP)
	waitState(true)
	syscall.Kill(pid, syscall.SIGCONT)
	waitState(false)
}
