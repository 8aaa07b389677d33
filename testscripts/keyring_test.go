package testscripts

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The scripts that store logins talk to a real Secret Service: a private
// D-Bus session bus, started once per test binary, on which D-Bus starts
// gnome-keyring with a passwordless, unlocked "login" collection in a home
// of its own. Scripts reach it through DBUS_SESSION_BUS_ADDRESS; they keep
// apart by using server names of their own (part of every record's key).
var (
	keyringBus string // the bus address, when it works
	keyringErr error  // why not
)

// startKeyring starts the bus; the returned function stops it (gnome-keyring
// exits with its bus).
func startKeyring() func() {
	for _, prog := range []string{"dbus-daemon", "gnome-keyring-daemon", "secret-tool"} {
		if _, err := exec.LookPath(prog); err != nil {
			keyringErr = fmt.Errorf("%s not found (install gnome-keyring dbus dbus-x11 libsecret-tools, as .ci/run does)", prog)
			return func() {}
		}
	}
	home, err := os.MkdirTemp("", "mcpc-keyring-")
	if err != nil {
		keyringErr = err
		return func() {}
	}
	data := filepath.Join(home, ".local", "share")
	rings := filepath.Join(data, "keyrings")
	login := "[keyring]\ndisplay-name=login\nctime=0\nmtime=0\nlock-on-idle=false\nlock-after=false\n"
	if err := errors.Join(os.MkdirAll(rings, 0o700),
		os.WriteFile(filepath.Join(rings, "login.keyring"), []byte(login), 0o600),
		os.WriteFile(filepath.Join(rings, "default"), []byte("login"), 0o600)); err != nil {
		keyringErr = err
		return func() { os.RemoveAll(home) }
	}
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1")
	cmd.Env = []string{"HOME=" + home, "XDG_DATA_HOME=" + data, "XDG_RUNTIME_DIR=" + home, "PATH=" + os.Getenv("PATH")}
	cmd.Dir = home
	dieWithUs(cmd)
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		keyringErr = fmt.Errorf("dbus-daemon: %v", err)
		return func() { os.RemoveAll(home) }
	}
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		os.RemoveAll(home)
	}
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	select {
	case a := <-addr:
		keyringBus = a
	case <-time.After(10 * time.Second):
		keyringErr = errors.New("dbus-daemon printed no address within 10s")
		return stop
	}
	// One write, read and delete through the real service proves the
	// collection is there and unlocked.
	probe := func(stdin string, args ...string) (string, error) {
		c := exec.Command("secret-tool", args...)
		c.Env = []string{"DBUS_SESSION_BUS_ADDRESS=" + keyringBus, "PATH=" + os.Getenv("PATH"), "HOME=" + home}
		c.Stdin = strings.NewReader(stdin)
		b, err := c.CombinedOutput()
		return string(b), err
	}
	if out, err := probe("probe", "store", "--label=mcpc test probe", "mcpc-probe", "1"); err != nil {
		keyringErr = fmt.Errorf("secret-tool store: %v: %s", err, out)
	} else if out, err := probe("", "lookup", "mcpc-probe", "1"); err != nil || out != "probe" {
		keyringErr = fmt.Errorf("secret-tool lookup: %v: %q", err, out)
	} else if out, err := probe("", "clear", "mcpc-probe", "1"); err != nil {
		keyringErr = fmt.Errorf("secret-tool clear: %v: %s", err, out)
	}
	if keyringErr != nil {
		keyringBus = ""
	}
	return stop
}

// scriptCondition answers [root] (the script runs as root, so chown works)
// and [keyring]: the Secret Service is there. Without one, `[!keyring]
// skip` skips the script on a developer's machine; in CI, where .ci/run
// installs it, the condition fails the script instead.
func scriptCondition(cond string) (bool, error) {
	if cond == "root" {
		return os.Geteuid() == 0, nil
	}
	if cond != "keyring" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	if keyringErr == nil {
		return true, nil
	}
	if os.Getenv("CI") == "true" {
		return false, fmt.Errorf("the Secret Service could not be started: %v", keyringErr)
	}
	return false, nil
}

// locked-keyring [-unlocked]: give the script a Secret Service of its own
// whose login keyring has a password and is locked, as on a desktop after
// the screen locked it; nothing can unlock it without a prompt, and there is
// no one to answer one. DBUS_SESSION_BUS_ADDRESS points at it until the
// script ends. With -unlocked it stays unlocked until lock-keyring.
func cmdLockedKeyring(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 || len(args) == 1 && args[0] != "-unlocked" {
		ts.Fatalf("usage: locked-keyring [-unlocked]")
	}
	home := ts.MkAbs("locked-keyring")
	data := filepath.Join(home, ".local", "share")
	ts.Check(os.MkdirAll(filepath.Join(data, "keyrings"), 0o700))
	// Not the script's environment: these daemons must not carry its
	// process tag, and they are stopped below.
	env := append([]string{"HOME=" + home, "XDG_DATA_HOME=" + data, "XDG_RUNTIME_DIR=" + home, "PATH=" + os.Getenv("PATH")}, daemonEnv()...)
	bus := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1")
	bus.Env, bus.Dir = env, home
	dieWithUs(bus)
	out, err := bus.StdoutPipe()
	ts.Check(err)
	ts.Check(bus.Start())
	ts.Defer(func() {
		bus.Process.Signal(syscall.SIGTERM)
		bus.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	ts.Check(err)
	addr := strings.TrimSpace(line)
	env = append(env, "DBUS_SESSION_BUS_ADDRESS="+addr)
	run := func(stdin string, name string, args ...string) {
		c := exec.Command(name, args...)
		c.Env, c.Dir, c.Stdin = env, home, strings.NewReader(stdin)
		if b, err := c.CombinedOutput(); err != nil {
			ts.Fatalf("%s: %v\n%s", name, err, b)
		}
	}
	// As a login session's PAM module does: create the login keyring
	// with the password, unlocked; then lock it.
	run("not-a-secret-password", "gnome-keyring-daemon", "--unlock", "--components=secrets")
	run("x", "secret-tool", "store", "--label=probe", "mcpc-probe", "1")
	ts.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	if len(args) == 0 {
		cmdLockKeyring(ts, false, nil)
	}
}

// lock-keyring: lock the login keyring of the script's locked-keyring.
func cmdLockKeyring(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: lock-keyring")
	}
	c := exec.Command("dbus-send", "--session", "--dest=org.freedesktop.secrets", "--type=method_call", "--print-reply",
		"/org/freedesktop/secrets", "org.freedesktop.Secret.Service.Lock", "array:objpath:/org/freedesktop/secrets/collection/login")
	c.Env = []string{"DBUS_SESSION_BUS_ADDRESS=" + ts.Getenv("DBUS_SESSION_BUS_ADDRESS"), "PATH=" + os.Getenv("PATH")}
	if b, err := c.CombinedOutput(); err != nil {
		ts.Fatalf("dbus-send: %v\n%s", err, b)
	}
}

// hung-keyring: point DBUS_SESSION_BUS_ADDRESS at a socket that accepts
// connections and never answers, as a wedged session bus or keyring
// daemon does.
func cmdHungKeyring(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: hung-keyring")
	}
	// A short path: unix socket paths are limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "mcpc-hung-")
	ts.Check(err)
	path := filepath.Join(dir, "bus")
	ln, err := net.Listen("unix", path)
	ts.Check(err)
	var conns []net.Conn
	var mu sync.Mutex
	ts.Defer(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		os.RemoveAll(dir)
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go io.Copy(io.Discard, c)
		}
	}()
	ts.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+path)
}
