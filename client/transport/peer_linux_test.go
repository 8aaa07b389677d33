package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// peerChild marks the run of the test binary in which TestSocketUser
// changes its uids: they are the whole process's, so not the parent's.
const peerChild = "MCPC_TEST_PEER_CHILD"

// TestSocketUser: the user a session's socket belongs to is the
// effective uid, on both ends. A process whose real uid differs (a
// setuid mcpc) attaches to the socket it made, and its holder takes the
// connection; a process of another effective uid is refused at either
// end even when its real uid is the holder's.
func TestSocketUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run with a real uid that is not the effective one")
	}
	if os.Getenv(peerChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSocketUser$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), peerChild+"=1")
		out, err := cmd.CombinedOutput()
		if err == nil && !strings.Contains(string(out), "--- PASS: TestSocketUser") {
			err = errors.New("it did not run")
		}
		if err != nil {
			t.Fatalf("the child with changed uids: %v\n%s", err, out)
		}
		return
	}
	const nobody = 65534
	t.Run("setuid", func(t *testing.T) {
		setresuid(t, nobody, 0)
		defer setresuid(t, 0, 0)
		if !fsx.IsUser(0) || fsx.IsUser(nobody) {
			t.Fatalf("IsUser(0) = %v, IsUser(%d) = %v with real uid %d, effective 0", fsx.IsUser(0), nobody, fsx.IsUser(nobody), nobody)
		}
		path := filepath.Join(t.TempDir(), "s.sock")
		peer := accepted(t, path)
		c, err := DialHolder(context.Background(), path)
		if err != nil {
			t.Fatalf("DialHolder refused the socket this process made: %v", err)
		}
		defer c.Close()
		if err := checked(t, peer); err != nil {
			t.Fatalf("CheckPeer refused a connection of this process's own user: %v", err)
		}
	})
	t.Run("another", func(t *testing.T) {
		// Loosened, so that only the checks keep the other user out.
		dir, err := os.MkdirTemp("", "peer")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "s.sock")
		peer := accepted(t, path)
		if err := errors.Join(os.Chmod(dir, 0o755), os.Chmod(path, 0o666)); err != nil {
			t.Fatal(err)
		}
		setresuid(t, 0, nobody)
		_, err = DialHolder(context.Background(), path)
		var fe *ForeignSocketError
		if !errors.As(err, &fe) || fe.UID != 0 || fe.What != "socket" {
			setresuid(t, 0, 0)
			t.Fatalf("DialHolder with effective uid %d = %v, want the socket of uid 0 refused", nobody, err)
		}
		c, err := DialUnix(context.Background(), path)
		setresuid(t, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		want := fmt.Sprintf("the connecting process belongs to another user (uid %d, pid %d)", nobody, os.Getpid())
		if err := checked(t, peer); !errors.Is(err, ErrPeerRefused) || err.Error() != want {
			t.Fatalf("CheckPeer = %v, want %s", err, want)
		}
	})
}

// setresuid gives the process real uid ruid and effective uid euid,
// keeping root as its saved uid so that it can change back.
func setresuid(t *testing.T, ruid, euid int) {
	t.Helper()
	if err := syscall.Setresuid(ruid, euid, 0); err != nil {
		t.Fatalf("setresuid(%d, %d, 0): %v", ruid, euid, err)
	}
}

// accepted listens at path and hands on the first connection, for the
// test to check once its uids are the holder's again.
func accepted(t *testing.T, path string) <-chan net.Conn {
	t.Helper()
	ln, err := ListenSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	conns := make(chan net.Conn, 1)
	go func() {
		defer ln.Close()
		c, _ := ln.Accept()
		conns <- c
	}()
	t.Cleanup(func() { ln.Close() })
	return conns
}

// checked is what CheckPeer makes of the connection accepted hands on.
func checked(t *testing.T, conns <-chan net.Conn) error {
	t.Helper()
	c := <-conns
	if c == nil {
		t.Fatal("no connection was accepted")
	}
	err := CheckPeer(c)
	c.Close()
	return err
}
