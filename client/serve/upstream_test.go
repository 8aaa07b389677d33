//go:build unix

package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/hold"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/testserver"
)

// serverEnv makes the test binary the test server: Upstream's holders
// hold a real server over real pipes.
const serverEnv = "MCPC_SERVE_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		os.Exit(testserver.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// heldUpstream is an Upstream of the test server (--counter, its pid in
// pidFile) whose Hold connects for real and counts the eras it was
// asked for.
type heldUpstream struct {
	*Upstream
	mu    sync.Mutex
	holds []Era
}

func newHeldUpstream(t *testing.T, pidFile string) *heldUpstream {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	entry := &config.Entry{Name: "counter", Server: &config.Server{Command: exe, Args: []string{"--counter", "--pid-file", pidFile}}}
	h := &heldUpstream{}
	h.Upstream = &Upstream{Name: "counter", Limit: 1 << 20,
		Hold: func(ctx context.Context, era Era) (*conn.Conn, error) {
			h.mu.Lock()
			h.holds = append(h.holds, era)
			h.mu.Unlock()
			return conn.Connect(ctx, entry, conn.ConnectOptions{Environ: append(os.Environ(), serverEnv+"=1"),
				Getenv: os.Getenv, Protocol: era.Protocol(), Input: hold.HolderInput()})
		}}
	return h
}

func (h *heldUpstream) held() []Era {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Era(nil), h.holds...)
}

// incr calls the counter's incr over l as a client of era and returns
// its text.
func incr(t *testing.T, l *Link, era Era, n int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	params := `{"name":"incr","arguments":{}}`
	if era == Modern {
		params = `{"name":"incr","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"}}}`
	} else if n == 1 {
		init := request(t, "init", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)
		if _, err := l.Call(ctx, init, nil); err != nil {
			t.Fatal(err)
		}
		if err := l.Send(request(t, nil, "notifications/initialized", `{}`)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := l.Call(ctx, request(t, fmt.Sprintf("c-%d", n), "tools/call", params), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Error != nil {
		t.Fatalf("incr: %v", res.Error)
	}
	var r struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(res.Result, &r); err != nil || len(r.Content) != 1 {
		t.Fatalf("incr result %s: %v", res.Result, err)
	}
	return r.Content[0].Text
}

// A session's socket stands in for a live session: Link reaches it for
// a client of the session's era, and opens a holder of its own (once per
// era) for the other.
func TestUpstreamLinkChoosesTheSessionByEra(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir := t.TempDir()
	u := newHeldUpstream(t, filepath.Join(dir, "server.pid"))
	defer u.Close()
	session := filepath.Join(dir, "session.sock")
	ln, err := transport.ListenSocket(session)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	u.Session, u.SessionEra = session, Modern
	ctx := context.Background()

	l, err := u.Link(ctx, Modern)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	select {
	case c := <-accepted:
		c.Close()
	case <-time.After(30 * time.Second):
		t.Fatal("a 2026-07-28 client was not linked to the session's socket")
	}
	if got := u.held(); len(got) != 0 {
		t.Fatalf("a client of the session's era opened holders of serve's own: %v", got)
	}

	a, err := u.Link(ctx, Legacy)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := u.Link(ctx, Legacy)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got := u.held(); len(got) != 1 || got[0] != Legacy {
		t.Fatalf("two 2025-11-25 clients: Hold was asked for %v, want one Legacy", got)
	}
	// Both clients of that era share the one holder, and its server.
	if got := incr(t, a, Legacy, 1); got != "1" {
		t.Errorf("first client's incr = %s, want 1", got)
	}
	if got := incr(t, b, Legacy, 1); got != "2" {
		t.Errorf("second client's incr = %s, want 2 (one holder for the era)", got)
	}
	select {
	case <-accepted:
		t.Error("a 2025-11-25 client was linked to the 2026-07-28 session")
	default:
	}
}

// Without a session (--no-session, an ad-hoc target) each era has a
// holder of serve's own, each its own server: their state is apart.
func TestUpstreamLinkHoldsEachEra(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	u := newHeldUpstream(t, filepath.Join(t.TempDir(), "server.pid"))
	defer u.Close()
	ctx := context.Background()
	m, err := u.Link(ctx, Modern)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	l, err := u.Link(ctx, Legacy)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := incr(t, m, Modern, 1); got != "1" {
		t.Errorf("2026-07-28 incr = %s, want 1", got)
	}
	if got := incr(t, m, Modern, 2); got != "2" {
		t.Errorf("2026-07-28 incr = %s, want 2", got)
	}
	if got := incr(t, l, Legacy, 1); got != "1" {
		t.Errorf("2025-11-25 incr = %s, want 1 (a server of its own)", got)
	}
	if got := u.held(); len(got) != 2 || got[0] != Modern || got[1] != Legacy {
		t.Errorf("Hold was asked for %v, want [Modern Legacy]", got)
	}
}

// An Upstream that cannot hold (no Hold) refuses a client of the era its
// session does not speak, naming the one it does.
func TestUpstreamLinkWithoutHold(t *testing.T) {
	u := &Upstream{Name: `server "s"`, Session: filepath.Join(t.TempDir(), "none.sock"), SessionEra: Modern}
	_, err := u.Link(context.Background(), Legacy)
	if err == nil || err.Error() != `server "s" is held in 2026-07-28 only` {
		t.Fatalf("Link = %v", err)
	}
	_, err = u.Link(context.Background(), Modern)
	if err == nil || !strings.HasPrefix(err.Error(), `cannot reach the holder of server "s": `) {
		t.Fatalf("Link to a session gone = %v", err)
	}
}

// Hold failing is Link's error, and no holder is kept. A refusal of the
// era (the server does not speak it) is the answer to the era's next
// client too, without a server started again for each probe; any other
// failure (down, slow) is tried again.
func TestUpstreamLinkHoldFails(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	for _, c := range []struct {
		err   error
		calls int
	}{
		{fmt.Errorf("no server today"), 2},
		{fail.New(fail.Protocol, "", "no such era"), 1},
	} {
		calls := 0
		u := &Upstream{Name: "s", Hold: func(context.Context, Era) (*conn.Conn, error) {
			calls++
			return nil, c.err
		}}
		for range 2 {
			if _, err := u.Link(context.Background(), Modern); err == nil || err.Error() != c.err.Error() {
				t.Fatalf("Link = %v", err)
			}
		}
		if calls != c.calls {
			t.Errorf("%v: Hold called %d times, want %d", c.err, calls, c.calls)
		}
		u.Close()
	}
}

// Close ends the holders serve keeps: their links end, their servers
// exit, and the directory of their sockets is removed.
func TestUpstreamClose(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	pidFile := filepath.Join(t.TempDir(), "server.pid")
	u := newHeldUpstream(t, pidFile)
	l, err := u.Link(context.Background(), Modern)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := incr(t, l, Modern, 1); got != "1" {
		t.Fatalf("incr = %s", got)
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, "mcpc-serve-*"))
	if len(dirs) != 1 {
		t.Fatalf("serve's socket directories: %v, want one", dirs)
	}
	if socks, _ := filepath.Glob(filepath.Join(dirs[0], "*.sock")); len(socks) != 1 || filepath.Base(socks[0]) != "2026-07-28.sock" {
		t.Fatalf("sockets %v, want 2026-07-28.sock", socks)
	}
	pid := serverPID(t, pidFile)

	u.Close()
	if _, err := os.Stat(dirs[0]); !os.IsNotExist(err) {
		t.Errorf("%s is left after Close: %v", dirs[0], err)
	}
	done := make(chan error, 1)
	go func() { _, err := l.Receive(); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("the link received a message after Close")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the link did not end with Close")
	}
	for deadline := time.Now().Add(30 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server (pid %d) runs on after Close", pid)
		}
	}
	// Close again, and Close of an Upstream that never held, are no-ops.
	u.Close()
	(&Upstream{}).Close()
}

// serverPID reads the pid the test server wrote ("server PID").
func serverPID(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(data))
	if len(f) != 2 {
		t.Fatalf("%s: %q", file, data)
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatal(err)
	}
	return pid
}
