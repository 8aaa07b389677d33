//go:build unix

// The harness signals processes and process groups: unix only.

package testscripts

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"
)

// ptyTimeout bounds each expect step of a terminal session.
const ptyTimeout = 20 * time.Second

// cmdPty runs a program on a pseudo-terminal, as a person at a terminal
// would, and plays a session file against it:
//
//	pty CODE SESSION PROG [ARGS...]
//
// SESSION lines are `expect REGEXP` (wait until the output since the last
// match matches), `send TEXT` (type TEXT and Enter), `ctrl-c`, `ctrl-d`,
// `pause DURATION`, or # comments. The program must exit with CODE. Everything it wrote to the
// terminal (stdout and stderr share it, as they do for a person), with CR LF
// turned into LF, becomes the command's stdout for later checks.
func cmdPty(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: pty CODE SESSION PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("pty: bad exit code %q", args[0])
	}
	session, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	path, err := exec.LookPath(args[2])
	if err != nil {
		// LookPath searches our PATH, not the script's.
		path = args[2]
		for _, dir := range strings.Split(ts.Getenv("PATH"), string(os.PathListSeparator)) {
			if p := dir + string(os.PathSeparator) + args[2]; isExecutable(p) {
				path = p
				break
			}
		}
	}
	cmd := exec.Command(path, args[3:]...)
	cmd.Env = append(scriptEnv(ts), "TERM=dumb")
	for _, k := range []string{"MCPC_NODE22", "MCPC_EVERYTHING"} {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	cmd.Dir = ts.MkAbs(".")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	ts.Check(err)
	defer tty.Close()

	out := &transcript{changed: make(chan struct{}, 1)}
	copied := make(chan struct{})
	go func() {
		io.Copy(out, tty) // ends with EIO once the program and its children close the terminal
		close(copied)
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	fail := func(format string, a ...any) {
		cmd.Process.Kill()
		<-exited
		ts.Logf("terminal so far:\n%s", out.text())
		ts.Fatalf(format, a...)
	}
	from := 0
	for n, l := range strings.Split(string(session), "\n") {
		l = strings.TrimSpace(l)
		verb, arg, _ := strings.Cut(l, " ")
		switch verb {
		case "", "#":
		case "expect":
			re, err := regexp.Compile(arg)
			if err != nil {
				fail("%s:%d: %v", args[1], n+1, err)
			}
			end, ok := out.wait(re, from, ptyTimeout)
			if !ok {
				fail("%s:%d: no %q on the terminal within %s", args[1], n+1, arg, ptyTimeout)
			}
			from = end
		case "send":
			// The terminal echoes it, as it would for a person.
			_, err = io.WriteString(tty, arg+"\r")
		case "ctrl-c":
			_, err = tty.Write([]byte{3})
		case "ctrl-d":
			_, err = tty.Write([]byte{4})
		case "pause":
			// A person takes a moment before typing.
			var d time.Duration
			if d, err = time.ParseDuration(arg); err == nil {
				time.Sleep(d)
			}
		default:
			fail("%s:%d: unknown session line %q", args[1], n+1, l)
		}
		if err != nil {
			fail("%s:%d: %v", args[1], n+1, err)
		}
	}
	var werr error
	select {
	case werr = <-exited:
	case <-time.After(ptyTimeout):
		fail("%s did not exit within %s of the session's end", args[2], ptyTimeout)
	}
	select {
	case <-copied:
	case <-time.After(time.Second):
	}
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(werr, &ee):
		got = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			fail("%s was killed by %v", args[2], ws.Signal())
		}
	case werr != nil:
		fail("%s: %v", args[2], werr)
	}
	text := out.text()
	fmt.Fprint(ts.Stdout(), text)
	if got != want {
		ts.Logf("terminal:\n%s", text)
		ts.Fatalf("%s exited %d, want %d", args[2], got, want)
	}
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// transcript collects what the program writes to the terminal.
type transcript struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func (t *transcript) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf.Write(p)
	t.mu.Unlock()
	select {
	case t.changed <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (t *transcript) text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ReplaceAll(t.buf.String(), "\r\n", "\n")
}

// wait returns the end of the first match of re at or after offset from
// (in text() terms) once one appears.
func (t *transcript) wait(re *regexp.Regexp, from int, d time.Duration) (int, bool) {
	deadline := time.After(d)
	for {
		s := t.text()
		if from <= len(s) {
			if loc := re.FindStringIndex(s[from:]); loc != nil {
				return from + loc[1], true
			}
		}
		select {
		case <-t.changed:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			return 0, false
		}
	}
}
