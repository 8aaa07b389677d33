//go:build unix

// The harness signals processes and process groups: unix only.

package testscripts

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("u", false, "update golden output in the scripts")

// binDir holds the real mcpc and test server binaries, built once.
var binDir string

func TestMain(m *testing.M) {
	flag.Parse()
	// A run that was killed (go test's -timeout panics, and no deferred
	// cleanup runs) left its directory behind: the next run removes it.
	sweepRuns()
	root, err := newRunDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = filepath.Join(root, "bin")
	if os.Getenv(hangChildEnv) == "" {
		if err := buildBinaries(binDir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	// What the suite starts outside a script (test servers, peers, the
	// keyring) gets a home and a temporary directory of its own, as each
	// script has $WORK: after the suite nothing may be left in them.
	if err := suiteDirs(root); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stopKeyring := startKeyring()
	code := m.Run()
	stopKeyring()
	if f := flag.Lookup("testwork"); f == nil || f.Value.String() != "true" {
		if left := leftovers(root); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "files left outside the scripts' own directories after the suite:\n  %s\n", strings.Join(left, "\n  "))
			code = 1
		}
	}
	os.RemoveAll(root)
	os.Exit(code)
}

// buildBinaries builds the real mcpc and the test server binaries into dir.
func buildBinaries(dir string) error {
	build := exec.Command("go", "build", "-o", dir+string(os.PathSeparator),
		"github.com/mcpc-dev/mcpc", "github.com/mcpc-dev/mcpc/internal/testserver/cmd/mcpc-testserver",
		"github.com/mcpc-dev/mcpc/testscripts/peers/mcpgo-server",
		"github.com/mcpc-dev/mcpc/testscripts/peers/rsscap",
		"github.com/mcpc-dev/mcpc/bench/listserver",
		// The go-sdk's conformance server (everything-server), a server
		// mcpc does not write, for the serve scripts.
		"github.com/modelcontextprotocol/go-sdk/conformance/everything-server")
	// Static, as released: no cgo, no dynamic loader at start-up.
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building mcpc: %v", err)
	}
	// The test server is called "testserver" in scripts.
	if err := os.Rename(filepath.Join(dir, "mcpc-testserver"), filepath.Join(dir, "testserver")); err != nil {
		return err
	}
	// mcpc-testhooks is mcpc with the test hooks (creds/testhooks_on.go)
	// compiled in, for the few scripts that stop it at a chosen point; the
	// released binary, tested everywhere else, has none.
	hooks := exec.Command("go", "build", "-tags", "mcpc_testhooks", "-o", filepath.Join(dir, "mcpc-testhooks"), "github.com/mcpc-dev/mcpc")
	hooks.Env = build.Env
	hooks.Stdout, hooks.Stderr = os.Stderr, os.Stderr
	if err := hooks.Run(); err != nil {
		return fmt.Errorf("building mcpc-testhooks: %v", err)
	}
	// hooks/mcpc is the test build under mcpc's name: a script that moves
	// its clock runs it (cmdClock).
	if err := os.Mkdir(filepath.Join(dir, "hooks"), 0o755); err != nil {
		return err
	}
	return os.Symlink(filepath.Join("..", "mcpc-testhooks"), filepath.Join(dir, "hooks", "mcpc"))
}

// suiteDirs points HOME, the XDG directories and TMPDIR of this process
// (and so of everything it starts) into root/home and root/tmp. The
// scripts' own directories ($WORK) are made in its TMPDIR.
func suiteDirs(root string) error {
	home := filepath.Join(root, "home")
	for k, v := range map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"TMPDIR":          filepath.Join(root, "tmp"),
	} {
		if err := os.MkdirAll(v, 0o700); err != nil {
			return err
		}
		os.Setenv(k, v)
	}
	return nil
}

// leftovers lists the files under the run's home and tmp (directories the
// suite made to start with do not count).
func leftovers(root string) []string {
	var left []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || path == filepath.Join(root, runLock):
		case d.IsDir() && path == binDir:
			return fs.SkipDir
		case !d.IsDir():
			rel, _ := filepath.Rel(root, path)
			left = append(left, rel)
		}
		return nil
	})
	return left
}

func TestScripts(t *testing.T) {
	testscript.Run(t, params(t, "testdata/script"))
}

// TestPeers runs the scripts that need the npm peers (.ci/peers installs them).
func TestPeers(t *testing.T) {
	testscript.Run(t, params(t, "testdata/peers"))
}

var tagSeq atomic.Int64

func params(t *testing.T, dir string) testscript.Params {
	peers := readPeers(t)
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Condition:           scriptCondition,
		Setup: func(env *testscript.Env) error {
			work := env.WorkDir
			home := filepath.Join(work, "home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
			env.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
			env.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("TESTSERVER", filepath.Join(binDir, "testserver"))
			env.Setenv("DBUS_SESSION_BUS_ADDRESS", keyringBus)
			env.Setenv("MCPC_TEST_CLOCK", filepath.Join(work, clockFile))
			for k, v := range peers {
				env.Setenv(k, v)
			}
			// Every process the script starts inherits this tag, so any
			// that outlive the script can be found, even after they were
			// re-parented away from us.
			tag := fmt.Sprintf("%d-%d", os.Getpid(), tagSeq.Add(1))
			env.Setenv("MCPC_TEST_TAG", tag)
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			tb := env.T().(testing.TB)
			tb.Cleanup(func() {
				// Give processes being torn down by Defer a moment.
				var left []process
				for range 50 {
					if left = tagged(tag); len(left) == 0 {
						return
					}
					time.Sleep(20 * time.Millisecond)
				}
				for _, p := range left {
					syscall.Kill(p.pid, syscall.SIGKILL)
				}
				tb.Errorf("processes left running after the script: %v", left)
			})
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"run":               cmdRun,
			"clock":             cmdClock,
			"serve":             cmdServe,
			"serve-everything":  cmdServeEverything,
			"serve-ts":          cmdServeTS,
			"serve-mcpgo":       cmdServeMcpgo,
			"rawpost":           cmdRawPost,
			"interrupt-when":    cmdInterruptWhen,
			"gone":              cmdGone,
			"sigstop":           cmdSigstop,
			"waitfile":          cmdWaitFile,
			"expand":            cmdExpand,
			"conformance":       cmdConformance,
			"rawcall":           cmdRawCall,
			"cmpjson":           cmdCmpJSON,
			"tabcomplete":       cmdTabComplete,
			"ttyrun":            cmdTTYRun,
			"tlsfront":          cmdTLSFront,
			"proxy":             cmdProxy,
			"pty":               cmdPty,
			"oauth-server":      cmdOAuthServer,
			"oauth-nonce-never": cmdOAuthNonceNever,
			"oauth-count":       cmdOAuthCount,
			"oauth-mint":        cmdOAuthMint,
			"oauth-idp-bad":     cmdOAuthIdPBad,
			"oauth-wait":        cmdOAuthWait,
			"oauth-migrate":     cmdOAuthMigrate,
			"oauth-revoke":      cmdOAuthRevokeClients,
			"oauth-echo":        cmdOAuthEcho,
			"oauth-echoed":      cmdOAuthEchoed,
			"no-secrets":        cmdNoSecrets,
			"record-shape":      cmdRecordShape,
			"authorize":         cmdAuthorize,
			"concurrent":        cmdConcurrent,
			"auth-coverage":     cmdConformanceAuthCoverage,
			"hold-locks":        cmdHoldLocks,
			"locked-keyring":    cmdLockedKeyring,
			"lock-keyring":      cmdLockKeyring,
			"hung-keyring":      cmdHungKeyring,
			"forge":             cmdForge,
			"silent":            cmdSilent,
			"holdconns":         cmdHoldConns,
			"sockspy":           cmdSockSpy,
			"downstream":        cmdDownstream,
			"mcpcserve":         cmdMcpcServe,
			"rawhttp":           cmdRawHTTP,
			"idleconns":         cmdIdleConns,
			"countlines":        cmdCountLines,
			"peer":              cmdPeer,
			"cardserver":        cmdCardServer,
		},
	}
}

// readPeers reads the locations .ci/peers wrote. Missing peers are not a
// reason to skip: the scripts that need them fail with a pointer to
// .ci/peers.
func readPeers(t *testing.T) map[string]string {
	out := map[string]string{}
	data, err := os.ReadFile(filepath.Join("..", ".cache", "peers.env"))
	if err != nil {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && strings.HasPrefix(k, "MCPC_") {
			out[k] = v
		}
	}
	return out
}

// run CODE PROG ARGS...: run PROG and require exit code CODE; stdout and
// stderr are kept for the next stdout/stderr/cmp commands, as with exec.
func cmdRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: run CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("run: bad exit code %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			ts.Fatalf("%s was killed by %v", args[1], ws.Signal())
		}
	case err != nil:
		ts.Fatalf("run %s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// serve VAR [--listserver] [FLAGS...]: start the test server (with
// --listserver, bench/listserver) over Streamable HTTP on a loopback port
// and put its URL in $VAR (scheme://host:port in $VAR_ORIGIN, the port in
// $VAR_PORT); it is stopped when the script ends.
func cmdServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: serve VAR [--listserver] [server flags]")
	}
	server, flags := ts.Getenv("TESTSERVER"), args[1:]
	if len(flags) > 0 && flags[0] == "--listserver" {
		server, flags = filepath.Join(binDir, "listserver"), flags[1:]
	}
	urlFile := ts.MkAbs("." + args[0] + ".url")
	cmd := exec.Command(server, append([]string{"--http", "127.0.0.1:0", "--url-file", urlFile}, flags...)...)
	cmd.Env = scriptEnv(ts)
	cmd.Dir = ts.MkAbs(".")
	cmd.Stderr = ts.Stderr()
	ts.Check(cmd.Start())
	stopOnDefer(ts, cmd)
	deadline := time.Now().Add(15 * time.Second)
	for {
		if b, err := os.ReadFile(urlFile); err == nil && len(b) > 0 {
			u := strings.TrimSpace(string(b))
			ts.Setenv(args[0], u)
			ts.Setenv(args[0]+"_ORIGIN", strings.TrimSuffix(u, "/mcp"))
			ts.Setenv(args[0]+"_PORT", u[strings.LastIndexByte(u, ':')+1:len(u)-len("/mcp")])
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("test server did not report its URL within 15s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// serve-everything [--sse] VAR [LOGFILE]: start
// @modelcontextprotocol/server-everything over Streamable HTTP (with --sse,
// the 2024-11-05 HTTP+SSE transport) on a free loopback port; $VAR gets its
// /mcp (/sse) URL. LOGFILE gets what the server prints on stdout (a line per
// session started and ended), else it goes to the script's log.
func cmdServeEverything(ts *testscript.TestScript, neg bool, args []string) {
	mode, path := "streamableHttp", "/mcp"
	if len(args) > 0 && args[0] == "--sse" {
		mode, path, args = "sse", "/sse", args[1:]
	}
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: serve-everything [--sse] VAR [LOGFILE]")
	}
	node, entry := ts.Getenv("MCPC_NODE22"), ts.Getenv("MCPC_EVERYTHING")
	if node == "" || entry == "" {
		ts.Fatalf("the npm peers are not installed: run .ci/peers")
	}
	port := freePort(ts)
	cmd := exec.Command(node, entry, mode)
	cmd.Env = append(scriptEnv(ts), "PORT="+strconv.Itoa(port))
	cmd.Dir = ts.MkAbs(".")
	cmd.Stderr = ts.Stderr()
	cmd.Stdout = ts.Stderr()
	if len(args) == 2 {
		f, err := os.Create(ts.MkAbs(args[1]))
		ts.Check(err)
		ts.Defer(func() { f.Close() })
		cmd.Stdout = f
	}
	ts.Check(cmd.Start())
	stopOnDefer(ts, cmd)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			ts.Setenv(args[0], "http://"+addr+path)
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("server-everything did not listen on %s within 30s", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// serve-ts [--ttl MS] [--replace OLDVAR] VAR [LOGFILE]: start
// peers/ts-server.cjs, a stateless 2026-07-28 server written with the
// TypeScript SDK v2, on a loopback port; $VAR gets its /mcp URL. LOGFILE
// gets one line per JSON-RPC message it receives ("POST tools/call", then
// any Mcp-Param-* headers and trace context as " name=value"). With --ttl,
// tools/list results carry that ttlMs. With --replace, the server started
// as $OLDVAR is stopped first and the new one listens on its port: a
// replica that shares nothing with it. The server's own output goes to
// .VAR.out.
func cmdServeTS(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: serve-ts [--ttl MS] [--replace OLDVAR] VAR [LOGFILE]"
	if neg {
		ts.Fatalf(usage)
	}
	var extra []string
	for len(args) >= 2 && strings.HasPrefix(args[0], "--") {
		switch args[0] {
		case "--ttl":
			if _, err := strconv.Atoi(args[1]); err != nil {
				ts.Fatalf("serve-ts: bad --ttl %q", args[1])
			}
			extra = append(extra, "MCPC_TS_TTL_MS="+args[1])
		case "--replace":
			extra = append(extra, "PORT="+stopTS(ts, args[1]))
		default:
			ts.Fatalf(usage)
		}
		args = args[2:]
	}
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf(usage)
	}
	node, modules := ts.Getenv("MCPC_NODE22"), ts.Getenv("MCPC_NODE_PATH")
	if node == "" || modules == "" {
		ts.Fatalf("the npm peers are not installed: run .ci/peers")
	}
	fixture, err := filepath.Abs(filepath.Join("peers", "ts-server.cjs"))
	ts.Check(err)
	urlFile := ts.MkAbs("." + args[0] + ".url")
	if len(args) == 2 {
		extra = append(extra, "MCPC_TS_REQUEST_LOG="+ts.MkAbs(args[1]))
	}
	cmd := exec.Command(node, fixture)
	cmd.Env = append(append(scriptEnv(ts), "NODE_PATH="+modules, "MCPC_TS_URL_FILE="+urlFile), extra...)
	cmd.Dir = ts.MkAbs(".")
	outFile := ts.MkAbs("." + args[0] + ".out")
	out, err := os.Create(outFile)
	ts.Check(err)
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	ts.Check(cmd.Start())
	stopOnDefer(ts, cmd)
	pid := cmd.Process.Pid
	ts.Check(os.WriteFile(ts.MkAbs("."+args[0]+".pid"), []byte(strconv.Itoa(pid)), 0o644))
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, err := os.ReadFile(urlFile); err == nil && len(b) > 0 {
			ts.Setenv(args[0], strings.TrimSpace(string(b)))
			return
		}
		if syscall.Kill(pid, 0) != nil || zombie(pid) {
			b, _ := os.ReadFile(outFile)
			ts.Fatalf("ts-server exited before it listened:\n%s", b)
		}
		if time.Now().After(deadline) {
			ts.Fatalf("ts-server did not report its URL within 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serve-mcpgo [--sse] VAR [LOGFILE]: start peers/mcpgo-server (a server
// written with mark3labs/mcp-go) over Streamable HTTP, or with --sse over
// the 2024-11-05 HTTP+SSE transport, on a loopback port; $VAR gets its URL
// (/mcp, or /sse). LOGFILE gets one line per JSON-RPC message it receives
// ("POST tools/call"; "GET" for a request without one). Over stdio scripts
// run it as --stdio 'mcpgo-server [--request-log FILE]'.
func cmdServeMcpgo(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: serve-mcpgo [--sse] VAR [LOGFILE]"
	transport := "http"
	if len(args) > 0 && args[0] == "--sse" {
		transport, args = "sse", args[1:]
	}
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf(usage)
	}
	urlFile := ts.MkAbs("." + args[0] + ".url")
	flags := []string{"--transport", transport, "--url-file", urlFile}
	if len(args) == 2 {
		flags = append(flags, "--request-log", ts.MkAbs(args[1]))
	}
	cmd := exec.Command(filepath.Join(binDir, "mcpgo-server"), flags...)
	cmd.Env = scriptEnv(ts)
	cmd.Dir = ts.MkAbs(".")
	cmd.Stderr = ts.Stderr()
	ts.Check(cmd.Start())
	stopOnDefer(ts, cmd)
	pid := cmd.Process.Pid
	deadline := time.Now().Add(15 * time.Second)
	for {
		if b, err := os.ReadFile(urlFile); err == nil && len(b) > 0 {
			ts.Setenv(args[0], strings.TrimSpace(string(b)))
			return
		}
		if syscall.Kill(pid, 0) != nil || zombie(pid) {
			ts.Fatalf("mcpgo-server exited before it listened")
		}
		if time.Now().After(deadline) {
			ts.Fatalf("mcpgo-server did not report its URL within 15s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stopTS stops the ts-server started as $name, waits until it has exited,
// and returns the port it listened on.
func stopTS(ts *testscript.TestScript, name string) string {
	u, err := url.Parse(ts.Getenv(name))
	if err != nil || u.Port() == "" {
		ts.Fatalf("serve-ts --replace: $%s is not a server URL", name)
	}
	pid, err := strconv.Atoi(ts.ReadFile("." + name + ".pid"))
	ts.Check(err)
	ts.Check(syscall.Kill(pid, syscall.SIGTERM))
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(pid, 0) == nil && !zombie(pid); {
		if time.Now().After(deadline) {
			ts.Fatalf("ts-server %s (pid %d) did not stop within 10s", name, pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return u.Port()
}

// rawpost OUT URL METHOD PARAMS-JSON: send one 2026-07-28 request to a
// Streamable HTTP server by hand (the required headers and the _meta
// envelope, nothing else) and write the "result" of its answer (a JSON body
// or an SSE stream) exactly as the server sent it to OUT: the reference
// mcpc's --json output is compared with. Negated, the server must refuse
// the request with an HTTP error status, and OUT gets its body.
func cmdRawPost(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: [!] rawpost OUT URL METHOD PARAMS-JSON")
	}
	var params map[string]any
	if err := json.Unmarshal([]byte(args[3]), &params); err != nil {
		ts.Fatalf("rawpost: params: %v", err)
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "rawpost", "version": "0"},
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": args[2], "params": params})
	ts.Check(err)
	req, err := http.NewRequest("POST", args[1], bytes.NewReader(body))
	ts.Check(err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", args[2])
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	}
	if uri, ok := params["uri"].(string); ok {
		req.Header.Set("Mcp-Name", uri)
	}
	client := &http.Client{Timeout: 15 * time.Second}
	resp, err := client.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	ts.Check(err)
	if neg {
		if resp.StatusCode < 400 {
			ts.Fatalf("rawpost: %s, want an HTTP error: %s", resp.Status, data)
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
		return
	}
	ctype := resp.Header.Get("Content-Type")
	if resp.StatusCode != http.StatusOK {
		ts.Fatalf("rawpost: %s (%s): %s", resp.Status, ctype, data)
	}
	// A JSON body is the answer; an SSE stream carries it in one of its
	// "data:" lines (after any notifications).
	messages := [][]byte{data}
	if strings.HasPrefix(ctype, "text/event-stream") {
		messages = nil
		for _, line := range strings.Split(string(data), "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				messages = append(messages, []byte(strings.TrimSpace(d)))
			}
		}
	} else if !strings.HasPrefix(ctype, "application/json") {
		ts.Fatalf("rawpost: %s (%s): %s", resp.Status, ctype, data)
	}
	for _, m := range messages {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		ts.Check(json.Unmarshal(m, &msg))
		if string(msg.ID) == "1" && msg.Result != nil {
			ts.Check(os.WriteFile(ts.MkAbs(args[0]), msg.Result, 0o644))
			return
		}
	}
	ts.Fatalf("rawpost: no result: %s", data)
}

func freePort(ts *testscript.TestScript) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func stopOnDefer(ts *testscript.TestScript, cmd *exec.Cmd) {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	ts.Defer(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
}

// scriptEnv rebuilds the script's environment for processes started by
// custom commands.
func scriptEnv(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "MCPC_TEST_TAG", "TMPDIR", "DBUS_SESSION_BUS_ADDRESS",
		"MCPC_TEST_PAUSE_BEFORE_REFRESH", "MCPC_TEST_CLOCK"} {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// interrupt-when FILE TEXT [KILL|TWICE]: once FILE contains TEXT, send
// SIGINT to the script's running mcpc (not a session's holder, which no
// terminal reaches), as Ctrl-C in a terminal would (or
// SIGKILL, as an OOM killer would; or SIGINT twice, 200ms apart, as an
// impatient user would). Use it right before the command that starts mcpc.
func cmdInterruptWhen(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 || len(args) == 3 && args[2] != "KILL" && args[2] != "TWICE" {
		ts.Fatalf("usage: interrupt-when FILE TEXT [KILL|TWICE]")
	}
	sig, twice := syscall.SIGINT, len(args) == 3 && args[2] == "TWICE"
	if len(args) == 3 && !twice {
		sig = syscall.SIGKILL
	}
	file, text, tag := ts.MkAbs(args[0]), args[1], ts.Getenv("MCPC_TEST_TAG")
	stop := make(chan struct{})
	ts.Defer(func() { close(stop) })
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			if b, _ := os.ReadFile(file); bytes.Contains(b, []byte(text)) {
				for _, p := range tagged(tag) {
					if p.name == "mcpc" && !sessionHolder(p.pid) {
						syscall.Kill(p.pid, sig)
						if twice {
							// Well inside the teardown the first one starts.
							time.Sleep(200 * time.Millisecond)
							syscall.Kill(p.pid, sig)
						}
					}
				}
				return
			}
		}
	}()
}

// sessionHolder says pid is a session's holder (mcpc __holder): detached
// from the terminal, so Ctrl-C there never reaches it.
func sessionHolder(pid int) bool {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return bytes.Contains(b, []byte("\x00__holder"))
}

// gone FILE: every PID listed in FILE (lines "label PID") has exited.
func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: gone PIDFILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		pid, err := strconv.Atoi(f[1])
		ts.Check(err)
		alive := syscall.Kill(pid, 0) == nil && !zombie(pid)
		// A kernel-delivered death (parent-death signal) takes a moment.
		for deadline := time.Now().Add(3 * time.Second); alive && !neg && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
			alive = syscall.Kill(pid, 0) == nil && !zombie(pid)
		}
		if alive != neg {
			ts.Fatalf("%s process %d: alive=%v", f[0], pid, alive)
		}
	}
}

// waitfile FILE [TEXT]: wait up to 15s for FILE to exist (and contain TEXT).
// For effects another process makes after mcpc has already exited.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile FILE [TEXT]")
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		b, err := os.ReadFile(ts.MkAbs(args[0]))
		if err == nil && (len(args) == 1 || bytes.Contains(b, []byte(args[1]))) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s did not appear (with %q) within 15s", args[0], args[1:])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type process struct {
	pid  int
	name string
}

func (p process) String() string { return fmt.Sprintf("%d (%s)", p.pid, p.name) }

// tagged lists live processes whose environment carries MCPC_TEST_TAG=tag.
func tagged(tag string) []process {
	want := []byte("MCPC_TEST_TAG=" + tag + "\x00")
	entries, _ := os.ReadDir("/proc")
	var out []process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append(env, 0), want) || zombie(pid) {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		out = append(out, process{pid, strings.TrimSpace(string(comm))})
	}
	return out
}

func zombie(pid int) bool {
	st := procState(fmt.Sprintf("/proc/%d/stat", pid))
	return st == 0 || st == 'Z' || st == 'X'
}

// procState is the state letter of a /proc stat file; 0 when it cannot
// be read (the process or thread is gone).
func procState(stat string) byte {
	b, err := os.ReadFile(stat)
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i <= 0 || len(b) <= i+2 {
		return 0
	}
	return b[i+2]
}

// sigstop PIDFILE: stop the process whose pid PIDFILE holds (SIGSTOP)
// and wait until every thread of it is stopped. kill(2) returns once the
// signal is queued; one thread takes it and only then stops the others,
// so under load the rest of a Go process (its network poller among them)
// can run on for a while, answering whoever connects: a script that
// goes on at once tests a running process, not a stopped one.
func cmdSigstop(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sigstop PIDFILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	ts.Check(err)
	ts.Check(syscall.Kill(pid, syscall.SIGSTOP))
	// A hang guard, not a measure: stopping takes a scheduling slice.
	for deadline := time.Now().Add(60 * time.Second); ; {
		threads, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
		if len(threads) == 0 {
			ts.Fatalf("process %d is gone", pid)
		}
		running := false
		for _, t := range threads {
			if st := procState(t); st != 'T' && st != 0 {
				running = true
			}
		}
		if !running {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("process %d did not stop within 60s", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var dollarVar = regexp.MustCompile(`\$[A-Z_][A-Z0-9_]*`)

// expand SRC DST: copy SRC to DST with $VAR references replaced, for
// config files that must name a port chosen at run time.
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expand SRC DST")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	out := dollarVar.ReplaceAllStringFunc(string(data), func(m string) string { return ts.Getenv(m[1:]) })
	ts.Check(os.WriteFile(dst, []byte(out), 0o644))
}

// conformance SCENARIO [SPEC-VERSION]: run the official conformance suite's
// client scenario against mcpc (through testscripts/conformance/harness.sh,
// which calls mcpc as a user would). It fails unless the suite passes with at
// least one SUCCESS check, and writes "STATUS id" lines to checks.txt.
func cmdConformance(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: conformance SCENARIO [SPEC-VERSION]")
	}
	node, suite := ts.Getenv("MCPC_NODE22"), ts.Getenv("MCPC_CONFORMANCE")
	if node == "" || suite == "" {
		ts.Fatalf("the npm peers are not installed: run .ci/peers")
	}
	harness, err := filepath.Abs(filepath.Join("conformance", "harness.sh"))
	ts.Check(err)
	out := ts.MkAbs("results")
	argv := []string{suite, "client", "--command", "sh " + harness, "--scenario", args[0], "-o", out}
	if len(args) == 2 {
		argv = append(argv, "--spec-version", args[1])
	}
	cmd := exec.Command(node, argv...)
	env := scriptEnv(ts)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + filepath.Dir(node) + string(os.PathListSeparator) + kv[len("PATH="):]
		}
	}
	cmd.Env = append(env, "MCPC_NODE22="+node)
	cmd.Dir = ts.MkAbs(".")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	runErr := cmd.Run()
	ts.Logf("conformance %s:\n%s", strings.Join(args, " "), log.String())
	noteConformanceRun(ts, args[0])
	matches, _ := filepath.Glob(filepath.Join(out, args[0]+"-*", "checks.json"))
	if len(matches) != 1 {
		ts.Fatalf("expected one checks.json for %s, found %d", args[0], len(matches))
	}
	data, err := os.ReadFile(matches[0])
	ts.Check(err)
	var checks []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	ts.Check(json.Unmarshal(data, &checks))
	var summary strings.Builder
	success, bad := 0, 0
	for _, c := range checks {
		fmt.Fprintf(&summary, "%s %s\n", c.Status, c.ID)
		switch c.Status {
		case "SUCCESS":
			success++
		case "FAILURE", "WARNING":
			bad++
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs("checks.txt"), []byte(summary.String()), 0o644))
	if runErr != nil || bad > 0 || success == 0 {
		ts.Fatalf("conformance %s failed (%v): %d failing checks, %d passing\n%s", args[0], runErr, bad, success, summary.String())
	}
}

// rawcall OUT METHOD PARAMS-JSON: start the test server over stdio, speak
// the 2025-11-25 handshake by hand, send one request and write its "result"
// exactly as the server sent it to OUT. It is the reference that mcpc's
// --json output is compared with.
func cmdRawCall(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: rawcall OUT METHOD PARAMS-JSON")
	}
	cmd := exec.Command(ts.Getenv("TESTSERVER"))
	cmd.Env = scriptEnv(ts)
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	stdout, err := cmd.StdoutPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	defer func() { stdin.Close(); cmd.Wait() }()
	in := bufio.NewReaderSize(stdout, 1<<20)
	send := func(msg string) { fmt.Fprintln(stdin, msg) }
	recv := func(id int) json.RawMessage {
		for {
			line, err := in.ReadBytes('\n')
			ts.Check(err)
			var m struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			ts.Check(json.Unmarshal(line, &m))
			if m.ID != nil && *m.ID == id {
				return m.Result
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"rawcall","version":"0"}}}`)
	recv(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":%q,"params":%s}`, args[1], args[2]))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), recv(2), 0o644))
}

// cmpjson A B: A and B hold equal JSON values (key order and spacing aside).
func cmdCmpJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cmpjson A B")
	}
	var a, b any
	for i, v := range []*any{&a, &b} {
		data := []byte(ts.ReadFile(args[i]))
		if err := json.Unmarshal(data, v); err != nil {
			ts.Fatalf("%s is not JSON: %v", args[i], err)
		}
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if eq := bytes.Equal(ja, jb); eq == neg {
		ts.Fatalf("%s and %s: equal=%v\n%s\n%s", args[0], args[1], eq, ja, jb)
	}
}

// tabcomplete [-enter] SHELL LINE FILE: start an interactive SHELL (bash,
// zsh or fish) in tmux with mcpc's completion script loaded, type LINE,
// press TAB (twice in bash, which lists on the second), and write the
// screen below the prompt, once the shell is done with the keys, to FILE.
// With -enter, Enter is pressed after that, and FILE gets the screen once
// what the line ran has ended and the next prompt is up: the completed line
// is run as the shell reads it.
//
// Each wait is for a definite event, never for a screen that looks still:
// the shell sets the pane's title (an escape tmux reads in order with what
// was drawn before it) when it shows a prompt, and when it reads a marker
// key (C-]) sent after the keys to wait for. A marker is read only once
// the keys before it were handled; a second one, sent once the first was
// seen, is written after any redraw the first key caused.
func cmdTabComplete(ts *testscript.TestScript, neg bool, args []string) {
	var enter, slow bool
	for ; len(args) > 0 && (args[0] == "-enter" || args[0] == "-slow"); args = args[1:] {
		enter, slow = enter || args[0] == "-enter", slow || args[0] == "-slow"
	}
	if neg || len(args) != 3 || slow && args[0] != "bash" {
		ts.Fatalf("usage: tabcomplete [-enter] [-slow] SHELL LINE FILE (-slow: bash only)")
	}
	shell, line, outFile := args[0], args[1], ts.MkAbs(args[2])
	for _, prog := range []string{"tmux", shell} {
		if _, err := exec.LookPath(prog); err != nil {
			ts.Fatalf("%s not found: .ci/run installs it", prog)
		}
	}
	dir := ts.MkAbs(".shell-" + shell)
	ts.Check(os.MkdirAll(dir, 0o755))
	sock := filepath.Join(dir, "tmux.sock")
	tmux := tmuxAt(ts, sock)
	tmux(append([]string{"-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "40", "-c", ts.MkAbs(".")}, tabShell(ts, shell, dir, slow)...)...)
	ts.Defer(func() {
		cmd := exec.Command("tmux", "-S", sock, "kill-server")
		cmd.Run()
	})
	screen := func() string { return tmux("capture-pane", "-p") }
	waitFor := func(ok func() bool, what string) {
		deadline := time.Now().Add(60 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				ts.Fatalf("%s: timed out after 60s waiting for %s; screen:\n%s", shell, what, screen())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	title := func(want string) func() bool {
		return func() bool { return strings.TrimSpace(tmux("display-message", "-p", "#{pane_title}")) == want }
	}
	// The prompt is up: its title was set, and "$" drawn after it.
	prompted := func() bool {
		return title("prompt")() && strings.HasSuffix(strings.TrimSpace(screen()), "$")
	}
	marked := func() {
		for range 2 {
			tmux("select-pane", "-T", "waiting")
			tmux("send-keys", "C-]")
			waitFor(title("mark"), "the marker key to be read")
		}
	}
	waitFor(prompted, "the prompt")
	// A TAB has been answered once no mcpc started by the shell is left
	// (a lookup starts a server, which takes a moment on a busy machine):
	// the marker is sent after that too, as a key typed ahead of a
	// completion can change what zsh lists.
	tag := ts.Getenv("MCPC_TEST_TAG")
	answered := func() {
		time.Sleep(100 * time.Millisecond)
		waitFor(func() bool {
			return !slices.ContainsFunc(tagged(tag), func(p process) bool { return p.name == "mcpc" })
		}, "mcpc __complete to end")
	}
	tmux("send-keys", "-l", line)
	tmux("send-keys", "Tab")
	answered()
	if shell == "bash" {
		tmux("send-keys", "Tab")
		answered()
	}
	marked()
	if enter {
		tmux("select-pane", "-T", "waiting")
		tmux("send-keys", "Enter")
		waitFor(prompted, "the line to run and the next prompt")
		marked()
	}
	var lines []string
	for _, l := range strings.Split(screen(), "\n") {
		if l = strings.TrimRight(l, " "); l != "" {
			lines = append(lines, l)
		}
	}
	ts.Check(os.WriteFile(outFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
}

// tabShell writes SHELL's start-up files under dir and returns the command
// line that starts it: the prompt "$ ", mcpc's completion loaded, the
// pane's title set to "prompt" before each prompt and to "mark" when C-]
// is read (tabcomplete waits for these). slow (bash): the shell takes a
// second before it asks mcpc for completions, as a loaded machine's can.
func tabShell(ts *testscript.TestScript, shell, dir string, slow bool) []string {
	switch shell {
	case "bash":
		rc := filepath.Join(dir, "bashrc")
		slower := ""
		if slow {
			slower = "eval \"$(declare -f _mcpc | sed '1s/_mcpc/_mcpc_now/')\"\n_mcpc() { sleep 1; _mcpc_now \"$@\"; }\n"
		}
		ts.Check(os.WriteFile(rc, []byte("PS1='$ '\nPROMPT_COMMAND='printf \"\\e]2;prompt\\a\"'\n"+
			"bind -x '\"\\C-]\": printf \"\\e]2;mark\\a\"'\nsource <(mcpc completion bash)\n"+slower), 0o644))
		return []string{"bash", "--noprofile", "--rcfile", rc, "-i"}
	case "zsh":
		ts.Check(os.WriteFile(filepath.Join(dir, ".zshrc"), []byte("PS1='$ '\nprecmd() { printf '\\e]2;prompt\\a' }\n"+
			"mark() { printf '\\e]2;mark\\a' }\nzle -N mark\nbindkey '^]' mark\n"+
			"autoload -Uz compinit\ncompinit -u -D\nsource <(mcpc completion zsh)\n"), 0o644))
		return []string{"env", "ZDOTDIR=" + dir, "zsh", "-i"}
	case "fish":
		// fish reads what fish_prompt prints to measure it: the title
		// goes straight to the terminal, from the event before it; and
		// fish's own title is off.
		return []string{"fish", "--no-config", "-i", "-C",
			"set -g fish_greeting ''; function fish_title; end; function fish_prompt; echo -n '$ '; end; " +
				"function __mcpc_prompted --on-event fish_prompt; printf '\\e]2;prompt\\a' >/dev/tty; end; " +
				"bind \\c] 'printf \"\\e]2;mark\\a\"'; mcpc completion fish | source"}
	}
	ts.Fatalf("tabcomplete: unknown shell %q", shell)
	return nil
}

// ttyrun COMMAND FILE: run the shell COMMAND on a terminal (tmux, 100x10)
// and wait for it to end; FILE gets the final screen, FILE.frames every
// distinct screen seen on the way, with escape sequences, separated by
// lines of ----.
func cmdTTYRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: ttyrun COMMAND FILE")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		ts.Fatalf("tmux not found: .ci/run installs it")
	}
	sock := ts.MkAbs(".tty.sock")
	tmux := tmuxAt(ts, sock)
	script := args[0] + `; echo "[exit $?]"; exec sleep 600`
	tmux("-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "10", "-c", ts.MkAbs("."), "sh", "-c", script)
	ts.Defer(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	var frames []string
	deadline := time.Now().Add(30 * time.Second)
	for {
		f := tmux("capture-pane", "-p", "-e")
		if len(frames) == 0 || frames[len(frames)-1] != f {
			frames = append(frames, f)
		}
		if strings.Contains(f, "[exit ") {
			break
		}
		if time.Now().After(deadline) {
			ts.Fatalf("ttyrun: %q did not end within 30s; screen:\n%s", args[0], f)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var lines []string
	for _, l := range strings.Split(tmux("capture-pane", "-p"), "\n") {
		if l = strings.TrimRight(l, " "); l != "" {
			lines = append(lines, l)
		}
	}
	file := ts.MkAbs(args[1])
	ts.Check(os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	ts.Check(os.WriteFile(file+".frames", []byte(strings.Join(frames, "----\n")), 0o644))
}

// tmuxAt runs tmux commands against the private server at sock, whose
// panes get the script's environment.
func tmuxAt(ts *testscript.TestScript, sock string) func(args ...string) string {
	return func(a ...string) string {
		cmd := exec.Command("tmux", append([]string{"-S", sock}, a...)...)
		cmd.Env = append(scriptEnv(ts), "TERM=xterm")
		out, err := cmd.CombinedOutput()
		if err != nil {
			ts.Fatalf("tmux %v: %v\n%s", a, err, out)
		}
		return string(out)
	}
}

// tlsfront VAR UPSTREAM: serve HTTPS on a loopback port, asking for a
// client certificate, and pass requests on to the http URL UPSTREAM. $VAR
// gets the https URL (same path). The PEM files ca.pem (the CA of the
// server's and client's certificates), client.pem and client-key.pem are
// written to $WORK.
func cmdTLSFront(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: tlsfront VAR UPSTREAM")
	}
	up, err := url.Parse(args[1])
	ts.Check(err)
	ca, caKey := newCert(ts, nil, nil, "mcpc test CA")
	srvCert, srvKey := newCert(ts, ca, caKey, "127.0.0.1")
	cliCert, cliKey := newCert(ts, ca, caKey, "mcpc client")
	writePEM(ts, "ca.pem", "CERTIFICATE", ca.Raw)
	writePEM(ts, "client.pem", "CERTIFICATE", cliCert.Raw)
	der, err := x509.MarshalPKCS8PrivateKey(cliKey)
	ts.Check(err)
	writePEM(ts, "client-key.pem", "PRIVATE KEY", der)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	srv := httptest.NewUnstartedServer(httputil.NewSingleHostReverseProxy(&url.URL{Scheme: up.Scheme, Host: up.Host}))
	srv.TLS = &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{srvCert.Raw}, PrivateKey: srvKey}},
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL+up.Path)
}

func newCert(ts *testscript.TestScript, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ts.Check(err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	if ip := net.ParseIP(name); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	}
	signer, signKey := tmpl, key
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	} else {
		signer, signKey = parent, parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signKey)
	ts.Check(err)
	cert, err := x509.ParseCertificate(der)
	ts.Check(err)
	return cert, key
}

func writePEM(ts *testscript.TestScript, name, typ string, der []byte) {
	ts.Check(os.WriteFile(ts.MkAbs(name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
}

// proxy VAR: run an HTTP proxy on a loopback port that refuses every
// request (502) after writing its request line to proxy.log; $VAR gets
// its URL.
func cmdProxy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: proxy VAR")
	}
	logFile := ts.MkAbs("proxy.log")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s\n", r.Method, r.RequestURI)
			f.Close()
		}
		http.Error(w, "refused by the test proxy", http.StatusBadGateway)
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}
