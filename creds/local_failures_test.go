package creds

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// A login whose callback port ("redirectPort") another process holds says
// which port to free, before anything is sent anywhere.
func TestLoginPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	ref := RefFor("srv", "https://mcp.example.com/mcp", "mcpc login srv", nil)
	l, err := StartLogin(context.Background(), LoginOptions{Store: NewMemStore(), Ref: ref, RedirectPort: port})
	e := fail.As(err)
	if l != nil || e == nil || e.Code != fail.AuthFailed || e.Hint != `free the port, or change "redirectPort"` ||
		!strings.HasPrefix(e.Msg, "cannot listen for the login callback: ") || !strings.Contains(e.Msg, ln.Addr().String()) {
		t.Fatalf("StartLogin: %v, %#v", l, err)
	}
}

// A token refresh lock that cannot be made (its directory is a file) is
// named at once, not waited for.
func TestRefreshLockUnmakeable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "locks")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ref := RefFor("srv", "https://mcp.example.com/mcp", "mcpc login srv", nil)
	ran := false
	err := withRecordLock(context.Background(), file, ref, time.Minute, time.Now, func() error { ran = true; return nil })
	if e := fail.As(err); ran || e == nil || e.Code != fail.AuthFailed || !strings.HasPrefix(e.Msg, "cannot take the token refresh lock: ") {
		t.Fatalf("withRecordLock: ran %v, %v", ran, err)
	}
}

// A lock with no directory would be a file in whatever directory the
// invocation runs in, locking only the invocations started there: it is
// refused, and nothing runs under it.
func TestRefreshLockNeedsDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	ref := RefFor("srv", "https://mcp.example.com/mcp", "mcpc login srv", nil)
	ran := false
	err := withRecordLock(context.Background(), "", ref, time.Minute, time.Now, func() error { ran = true; return nil })
	if e := fail.As(err); ran || e == nil || e.Code != fail.Internal || e.Msg != "the token refresh lock of srv has no directory" {
		t.Fatalf("withRecordLock: ran %v, %v", ran, err)
	}
	if left, _ := filepath.Glob("*.lock"); len(left) > 0 {
		t.Errorf("lock files left in the working directory: %v", left)
	}
}
