//go:build unix

package testscripts

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// downstreams are the processes downstream started, by script and name.
var downstreams sync.Map // downstreamKey → *downstreamProc

type downstreamKey struct {
	ts   *testscript.TestScript
	name string
}

type downstreamProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
	err   error // Wait's, once done is closed
}

// downstream start NAME [-env VAR]... PROG [ARGS...]: start PROG as an
// MCP host starts its server (mcpc serve …): its stdin a pipe the script
// writes with downstream send and keeps open until downstream close; its
// stdout in NAME.out, its stderr in NAME.err, its pid in NAME.pid. It
// gets the script's environment and each -env VAR the script set.
//
// downstream send NAME TEXT|@FILE...: write each TEXT (a JSON-RPC
// message), or every line of FILE, as a line of NAME's stdin.
//
// downstream close NAME: close NAME's stdin and wait for it to exit.
// downstream signal NAME TERM|INT|KILL: signal it and wait for it to
// exit. Both print how it ended ("exit N", "killed by SIGNAL"), within
// 30s (a hang guard: else the script fails, saying it still runs); NAME
// may then be started again.
func cmdDownstream(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: downstream start NAME [-env VAR]... PROG [ARGS...] | send NAME TEXT|@FILE... | close NAME | signal NAME TERM|INT|KILL"
	if neg || len(args) < 2 {
		ts.Fatalf(usage)
	}
	key := downstreamKey{ts, args[1]}
	if args[0] == "start" {
		downstreamStart(ts, key, args[2:])
		return
	}
	v, ok := downstreams.Load(key)
	if !ok {
		ts.Fatalf("downstream %s was not started", args[1])
	}
	p := v.(*downstreamProc)
	switch {
	case args[0] == "send" && len(args) > 2:
		for _, a := range args[2:] {
			text := a
			if f, ok := strings.CutPrefix(a, "@"); ok {
				text = strings.TrimSuffix(ts.ReadFile(f), "\n")
			}
			_, err := io.WriteString(p.stdin, text+"\n")
			ts.Check(err)
		}
	case args[0] == "close" && len(args) == 2:
		p.stdin.Close()
		fmt.Fprintln(ts.Stdout(), p.ended(ts, args[1]))
		downstreams.CompareAndDelete(key, p)
	case args[0] == "signal" && len(args) == 3:
		sig, ok := map[string]syscall.Signal{"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "KILL": syscall.SIGKILL}[args[2]]
		if !ok {
			ts.Fatalf(usage)
		}
		ts.Check(p.cmd.Process.Signal(sig))
		fmt.Fprintln(ts.Stdout(), p.ended(ts, args[1]))
		downstreams.CompareAndDelete(key, p)
	default:
		ts.Fatalf(usage)
	}
}

func downstreamStart(ts *testscript.TestScript, key downstreamKey, args []string) {
	env := scriptEnv(ts)
	for len(args) >= 2 && args[0] == "-env" {
		env = append(env, args[1]+"="+ts.Getenv(args[1]))
		args = args[2:]
	}
	if len(args) == 0 {
		ts.Fatalf("usage: downstream start NAME [-env VAR]... PROG [ARGS...]")
	}
	if _, ok := downstreams.Load(key); ok {
		ts.Fatalf("downstream %s runs already", key.name)
	}
	cmd := exec.Command(lookScriptPath(ts, args[0]), args[1:]...)
	cmd.Env, cmd.Dir = env, ts.MkAbs(".")
	out, err := os.Create(ts.MkAbs(key.name + ".out"))
	ts.Check(err)
	defer out.Close()
	errf, err := os.Create(ts.MkAbs(key.name + ".err"))
	ts.Check(err)
	defer errf.Close()
	cmd.Stdout, cmd.Stderr = out, errf
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	p := &downstreamProc{cmd: cmd, stdin: stdin, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	downstreams.Store(key, p)
	ts.Check(os.WriteFile(ts.MkAbs(key.name+".pid"), []byte(fmt.Sprint(cmd.Process.Pid)), 0o644))
	// The script's end is the host's: stdin closed, then SIGKILL for
	// what did not go within 5s (the leak check names what is left).
	ts.Defer(func() {
		downstreams.CompareAndDelete(key, p)
		stdin.Close()
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-p.done
		}
	})
}

// ended waits for p to exit and says how it did.
func (p *downstreamProc) ended(ts *testscript.TestScript, name string) string {
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		ts.Fatalf("downstream %s (pid %d) still runs 30s later", name, p.cmd.Process.Pid)
	}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return "exit 0"
	case errors.As(p.err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "killed by " + ws.Signal().String()
		}
		return fmt.Sprintf("exit %d", ee.ExitCode())
	}
	ts.Fatalf("downstream %s: %v", name, p.err)
	return ""
}

// lookScriptPath finds prog on the script's PATH (where mcpc and the
// test servers are), as a shell of the script would.
func lookScriptPath(ts *testscript.TestScript, prog string) string {
	if strings.Contains(prog, "/") {
		return prog
	}
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		path := filepath.Join(dir, prog)
		if st, err := os.Stat(path); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return path
		}
	}
	ts.Fatalf("%s is not on the script's PATH", prog)
	return ""
}
