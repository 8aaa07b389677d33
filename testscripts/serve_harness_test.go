//go:build unix

package testscripts

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// servedAt is mcpc serve --http's note of where it serves, and (when it
// made the token) where the token is.
var (
	servedAt  = regexp.MustCompile(`(?m)^mcpc: note: serving .* at (\S+); `)
	tokenFile = regexp.MustCompile(`(?m)^mcpc: note: serving .*; the token is in (\S+) \(`)
)

// mcpcServes are the mcpc serve processes mcpcserve started, by script
// and name: mcpcserve -stop ends one before the script does.
var mcpcServes sync.Map // *testscript.TestScript → map[string]*servedProc

type servedProc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// mcpcserve [-env VAR]... [-rsscap MIB] [-mock] NAME [ARGS...]: start
// 'mcpc serve --http 127.0.0.1:0 ARGS...' in the background, with the
// script's environment and each VAR of -env, its stderr in .NAME.err;
// wait (60s at most) for its note of where it serves and set $NAME to
// that URL, $NAME_PID to its pid, and $NAME_TOKEN_FILE to the token's
// file when serve made one. With -rsscap it runs under rsscap MIB. It
// is stopped with SIGTERM at the script's end;
// 'mcpcserve -stop NAME [CODE]' stops it now and requires exit status
// CODE, 0 unless given (under rsscap: its peak resident memory stayed
// within MIB). With -mock it is 'mcpc mock --http 127.0.0.1:0 ARGS...',
// with -replay 'mcpc replay --http 127.0.0.1:0 ARGS...', served on the
// same side.
func cmdMcpcServe(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: mcpcserve [-env VAR]... [-rsscap MIB] [-mock | -replay] NAME [ARGS...] | mcpcserve -stop NAME [CODE]"
	if neg || len(args) < 1 {
		ts.Fatalf(usage)
	}
	if args[0] == "-stop" {
		want := 0
		if len(args) == 3 {
			want, _ = strconv.Atoi(args[2])
		}
		if len(args) < 2 || len(args) > 3 {
			ts.Fatalf(usage)
		}
		stopMcpcServe(ts, args[1], want)
		return
	}
	fs := flag.NewFlagSet("mcpcserve", flag.ContinueOnError)
	var envs []string
	fs.Func("env", "", func(v string) error { envs = append(envs, v); return nil })
	rss := fs.Int("rsscap", 0, "")
	mock := fs.Bool("mock", false, "")
	replay := fs.Bool("replay", false, "")
	if err := fs.Parse(args); err != nil || fs.NArg() < 1 {
		ts.Fatalf(usage)
	}
	name, rest := fs.Arg(0), fs.Args()[1:]
	what := "serve"
	switch {
	case *mock:
		what = "mock"
	case *replay:
		what = "replay"
	}
	argv := append([]string{filepath.Join(binDir, "mcpc"), what, "--http", "127.0.0.1:0"}, rest...)
	if *rss > 0 {
		argv = append([]string{filepath.Join(binDir, "rsscap"), strconv.Itoa(*rss)}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = scriptEnv(ts)
	for _, k := range envs {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	cmd.Dir = ts.MkAbs(".")
	errFile := ts.MkAbs("." + name + ".err")
	f, err := os.Create(errFile)
	ts.Check(err)
	defer f.Close()
	cmd.Stderr = f
	ts.Check(cmd.Start())
	p := &servedProc{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }()
	v, loaded := mcpcServes.LoadOrStore(ts, map[string]*servedProc{})
	procs := v.(map[string]*servedProc)
	procs[name] = p
	if !loaded {
		ts.Defer(func() {
			for _, p := range procs {
				p.cmd.Process.Signal(syscall.SIGTERM)
				select {
				case <-p.done:
				case <-time.After(5 * time.Second):
					p.cmd.Process.Kill()
					<-p.done
				}
			}
			mcpcServes.Delete(ts)
		})
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(errFile)
		if m := servedAt.FindSubmatch(b); m != nil {
			ts.Setenv(name, string(m[1]))
			ts.Setenv(name+"_PID", strconv.Itoa(cmd.Process.Pid))
			if t := tokenFile.FindSubmatch(b); t != nil {
				ts.Setenv(name+"_TOKEN_FILE", string(t[1]))
			}
			return
		}
		select {
		case <-p.done:
			ts.Fatalf("mcpc serve exited before it served (%v):\n%s", cmd.ProcessState, b)
		default:
		}
		if time.Now().After(deadline) {
			ts.Fatalf("mcpc serve did not say where it serves within 60s:\n%s", b)
		}
	}
}

// stopMcpcServe ends the mcpc serve started as name and requires exit
// status want.
func stopMcpcServe(ts *testscript.TestScript, name string, want int) {
	v, ok := mcpcServes.Load(ts)
	var p *servedProc
	if ok {
		p = v.(map[string]*servedProc)[name]
	}
	if p == nil {
		ts.Fatalf("mcpcserve -stop: no mcpc serve started as %s", name)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
		ts.Fatalf("mcpc serve %s did not stop within 30s of SIGTERM", name)
	}
	if code := p.cmd.ProcessState.ExitCode(); code != want {
		b, _ := os.ReadFile(ts.MkAbs("." + name + ".err"))
		ts.Fatalf("mcpc serve %s exited %d (%v):\n%s", name, code, p.cmd.ProcessState, b)
	}
}

// rawhttp [-H 'Name: value']... [-body TEXT] [-zeros MIB] [-events N] METHOD URL OUT:
// send one HTTP request by hand and write to OUT its status line
// ("401 Unauthorized"), its headers but Date and Content-Length ("Name:
// value", sorted), a blank line and its body. -zeros sends a body of MIB
// MiB (a JSON-RPC request whose text argument is that long, made as it
// is sent, never held whole), with its Content-Length. -events reads the
// body up to its Nth server-sent event only (a stream that stays open,
// as a subscription's does). A request the
// server cuts off before it answers writes "error: …" instead.
func cmdRawHTTP(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: rawhttp [-H 'Name: value']... [-body TEXT] [-zeros MIB] [-events N] METHOD URL OUT"
	fs := flag.NewFlagSet("rawhttp", flag.ContinueOnError)
	var headers []string
	fs.Func("H", "", func(v string) error { headers = append(headers, v); return nil })
	body := fs.String("body", "", "")
	zeros := fs.Int64("zeros", 0, "")
	events := fs.Int("events", 0, "")
	if err := fs.Parse(args); err != nil || neg || fs.NArg() != 3 {
		ts.Fatalf(usage)
	}
	var r io.Reader = strings.NewReader(*body)
	size := int64(len(*body))
	if *zeros > 0 {
		head := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`
		tail := `"}}}`
		n := *zeros << 20
		r = io.MultiReader(strings.NewReader(head), io.LimitReader(zeroText{}, n), strings.NewReader(tail))
		size = int64(len(head)) + n + int64(len(tail))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, fs.Arg(0), fs.Arg(1), r)
	ts.Check(err)
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for _, h := range headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok {
			ts.Fatalf("rawhttp: header %q is not Name: value", h)
		}
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	if host := req.Header.Get("Host"); host != "" {
		req.Host = host
	}
	var out strings.Builder
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(&out, "error: %v\n", err)
		ts.Check(os.WriteFile(ts.MkAbs(fs.Arg(2)), []byte(out.String()), 0o644))
		return
	}
	defer resp.Body.Close()
	data := readEvents(resp.Body, *events)
	fmt.Fprintf(&out, "%s\n", resp.Status)
	var keys []string
	for k := range resp.Header {
		if k != "Date" && k != "Content-Length" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range resp.Header[k] {
			fmt.Fprintf(&out, "%s: %s\n", k, v)
		}
	}
	fmt.Fprintf(&out, "\n%s", data)
	ts.Check(os.WriteFile(ts.MkAbs(fs.Arg(2)), []byte(out.String()), 0o644))
}

// readEvents reads body (1 MiB at most): all of it, or up to the end of
// its nth event when n > 0.
func readEvents(body io.Reader, n int) []byte {
	if n <= 0 {
		data, _ := io.ReadAll(io.LimitReader(body, 1<<20))
		return data
	}
	var data []byte
	r := bufio.NewReader(io.LimitReader(body, 1<<20))
	for seen := 0; seen < n; {
		line, err := r.ReadBytes('\n')
		data = append(data, line...)
		if err != nil {
			break
		}
		if strings.TrimSpace(string(line)) == "" {
			seen++
		}
	}
	return data
}

// zeroText reads as an endless run of '0'.
type zeroText struct{}

func (zeroText) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

// idleconns N URL: open N TCP connections to URL's host; half send
// nothing, half the head of a POST whose body never comes. They stay
// open until the script ends; it returns once all are connected.
func cmdIdleConns(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: idleconns N URL")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	u, err := url.Parse(args[1])
	ts.Check(err)
	var conns []net.Conn
	ts.Defer(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for i := range n {
		c, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
		if err != nil {
			ts.Fatalf("idleconns: connection %d of %d: %v", i+1, n, err)
		}
		conns = append(conns, c)
		if i%2 == 1 {
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", u.Path, u.Host)
		}
	}
}

// countlines PATTERN FILE N: wait (60s at most) until FILE has at least
// N lines matching PATTERN: two calls both in flight, say.
func cmdCountLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: countlines PATTERN FILE N")
	}
	re, err := regexp.Compile(args[0])
	ts.Check(err)
	want, err := strconv.Atoi(args[2])
	ts.Check(err)
	got := 0
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		got = 0
		if f, err := os.Open(ts.MkAbs(args[1])); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if re.MatchString(sc.Text()) {
					got++
				}
			}
			f.Close()
		}
		if got >= want {
			return
		}
	}
	ts.Fatalf("%s has %d lines matching %q after 60s, want %d", args[1], got, args[0], want)
}

// peerClients are the other command-line MCP clients .ci/peers installs
// (bench/peers pins them), by the name scripts give them.
var peerClients = map[string]string{"inspector": "MCPC_INSPECTOR", "mcporter": "MCPC_MCPORTER", "apify": "MCPC_APIFY"}

// peer CODE CLIENT ARGS...: run another MCP client (inspector, mcporter,
// or apify: @apify/mcpc) with Node.js 22 first on PATH, and require exit
// code CODE; stdout and stderr are kept as run keeps them. @apify/mcpc's
// home ($MCPC_HOME_DIR) is a short directory of the script's own.
func cmdPeer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: peer CODE inspector|mcporter|apify [ARGS...]")
	}
	key, ok := peerClients[args[1]]
	if !ok {
		ts.Fatalf("peer: unknown client %q (want inspector, mcporter or apify)", args[1])
	}
	prog, node := ts.Getenv(key), ts.Getenv("MCPC_NODE22")
	if prog == "" || node == "" {
		ts.Fatalf("the npm peers are not installed (%s unset): run .ci/peers", key)
	}
	if args[1] == "apify" && ts.Getenv("MCPC_HOME_DIR") == "" {
		// Its bridge's socket is under its home: $WORK/home is too long a
		// path for a socket's address.
		dir, err := os.MkdirTemp("", "apify-")
		ts.Check(err)
		ts.Defer(func() { os.RemoveAll(dir) })
		ts.Setenv("MCPC_HOME_DIR", dir)
	}
	path := ts.Getenv("PATH")
	ts.Setenv("PATH", filepath.Dir(node)+string(os.PathListSeparator)+path)
	defer ts.Setenv("PATH", path)
	cmdRun(ts, false, append([]string{args[0], prog}, args[2:]...))
}
