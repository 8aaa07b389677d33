//go:build linux

// The bench measures on Linux only: it reads /proc, and wait4's rusage and
// the uname it reports have no portable equivalent.

// Command harness runs the rows of bench/run: each group's commands run
// alternately (A B C … A B C …) after a warm-up round, so machine noise hits
// them alike, and it reports median wall time, median CPU time and peak RSS
// with the ratio of each median wall time to the group's baseline. It prints
// the tables and writes them, with the machine they ran on, as Markdown.
//
// bench/run builds the binaries and installs the npm peers, then runs
//
//	go run ./bench/harness -bin DIR [-peers DIR] [-node DIR] [-everything FILE] [-quick] [-runs N] [-out FILE]
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpc-dev/mcpc/internal/shellwords"
)

// cmdSpec is one command of a row.
type cmdSpec struct {
	argv []string
	// home, when set, is called before every run for the HOME to use
	// (outside the timing): a fresh one for cold rows.
	home func() string
	// want must occur in the output of the check run.
	want string
	// ownRSS polls the client's own peak RSS (VmHWM) instead of taking
	// wait4's, which is the largest of the process and the children it
	// reaped (a stdio server holding a big result would hide the client).
	ownRSS bool
	// parallel > 1 starts that many copies at once; the run's wall time is
	// until the last ends, CPU is their sum, failures are counted.
	parallel int
	// server is the URL of the HTTP test server the command talks to: the
	// check run counts the requests it makes there.
	server string
}

type row struct {
	name string
	cmd  cmdSpec
	note string
	// skip, when set, is why the row was not measured.
	skip string

	wall, cpu []time.Duration
	rss       []int64 // KiB
	faults    []int64 // minor page faults
	failures  int
	requests  int // HTTP requests of one invocation (cmd.server rows)
}

type group struct {
	key   string // for targets(): stdio-call, http-2026-07-28, huge, startup, …
	title string
	// what the ratio column is relative to: the first row.
	rows   []*row
	runs   int
	warmup int
	// faults adds each row's median minor page faults to its notes.
	faults bool
	// holder is the resident memory (KiB) of the session holder a
	// session group's rows call through, idle, its server not counted.
	holder int64
	// messageMiB is the size of the list a huge-any group's rows read,
	// for their bound (3 × message + 20 MiB).
	messageMiB float64
}

type harness struct {
	bin, peers, node string
	everything       string // server-everything's entry script, run by node over stdio
	quick            bool
	runs             int // when > 0, the run count of the one-invocation groups
	tmp              string
	basePath         string
	homeN            int
	spawn            *spawner
	requestLogs      map[string]string // server URL → its --header-log file
}

func main() {
	h := &harness{requestLogs: map[string]string{}}
	out, only := h.parseFlags()
	h.prepare()
	defer runExit()

	h.startSpawner()
	load0 := loadavg()
	started := time.Now().UTC()
	groups := h.groups(h.startServers())
	// The serve rows start servers of their own (and peers): only when
	// they run.
	wantServe := only == "" || strings.HasPrefix("serve-", only) || strings.HasPrefix(only, "serve-")
	var fixture *serveFixture
	if wantServe {
		fixture = h.startServeFixture()
		groups = append(groups, h.serveGroups(fixture, h.slowRuns())...)
	}
	if only != "" {
		groups = slices.DeleteFunc(groups, func(g *group) bool { return !strings.HasPrefix(g.key, only) })
	}
	for _, g := range groups {
		h.runGroup(g)
		printGroup(os.Stdout, g)
	}
	var st *serveTables
	if wantServe && (only == "" || strings.HasPrefix("serve-load", only) || strings.HasPrefix(only, "serve-load")) {
		st = h.serveLoad(fixture)
		fmt.Println()
		for _, l := range st.lines() {
			fmt.Println(l)
		}
	}
	inits := h.initTrace(map[bool]int{false: 200, true: 20}[h.quick])
	fmt.Println()
	for _, l := range targets(groups, st) {
		fmt.Println(l)
	}
	fmt.Println()
	for _, l := range inits {
		fmt.Println(l)
	}
	load1 := loadavg()
	if out != "" {
		var b bytes.Buffer
		h.report(&b, groups, st, inits, started, load0, load1)
		check(os.WriteFile(out, b.Bytes(), 0o644))
		fmt.Fprintln(os.Stderr, "harness: wrote", out)
	}
}

// parseFlags reads the flags into h, and returns -out and -only.
func (h *harness) parseFlags() (out, only string) {
	flag.StringVar(&h.bin, "bin", "", "directory with mcpc, mcpc-testserver, floor, hello, hellosdk, spawn, listserver, serveload")
	flag.StringVar(&h.peers, "peers", "", "npm prefix holding the peers (node_modules/.bin); empty skips them")
	flag.StringVar(&h.node, "node", "", "directory of the node binary the peers run on")
	flag.StringVar(&h.everything, "everything", "", "server-everything's entry script (run by node from -node over stdio); empty skips its session rows")
	flag.BoolVar(&h.quick, "quick", false, "few runs, to try the script out")
	flag.IntVar(&h.runs, "runs", 0, "runs of each row in the one-invocation groups (default 30 for start-up, 15 for the others; the 60 MiB and 50-process groups keep 5)")
	flag.StringVar(&out, "out", "", "write the Markdown report to this file")
	flag.StringVar(&only, "only", "", "run only the groups whose key starts with this (stdio, http, huge, startup, …)")
	flag.Parse()
	if h.bin == "" {
		die(errors.New("-bin is required"))
	}
	var err error
	h.bin, err = filepath.Abs(h.bin)
	check(err)
	if h.peers != "" {
		h.peers, err = filepath.Abs(h.peers)
		check(err)
	}
	return out, only
}

// prepare makes the temporary directory (removed at exit, an interrupt
// included) and the PATH the commands run with.
func (h *harness) prepare() {
	var err error
	h.tmp, err = os.MkdirTemp("", "mcpc-bench-")
	check(err)
	atExit(func() { os.RemoveAll(h.tmp) })
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		die(errors.New("interrupted"))
	}()
	h.basePath = os.Getenv("PATH")
	if h.node != "" {
		h.basePath = h.node + string(os.PathListSeparator) + h.basePath
	}
}

// startServers starts the HTTP test servers (stopped at exit), each era's,
// opens a 2025 session on the legacy one, and connects @apify/mcpc's
// sessions when the peers are there: the arguments of groups.
func (h *harness) startServers() (url26, url25, session25, peerHome string, sessions map[string]string) {
	url26, stop26 := h.startHTTP("modern", "--stateless")
	atExit(stop26)
	url25, stop25 := h.startHTTP("legacy", "--legacy")
	atExit(stop25)
	session25 = openLegacySession(url25)
	peerHome = h.newHome()
	if h.peers != "" {
		// @apify/mcpc's bridges get servers of their own: their keep-alive
		// requests would otherwise count against the other rows.
		a26, stopA26 := h.startHTTP("apify-modern", "--stateless")
		atExit(stopA26)
		a25, stopA25 := h.startHTTP("apify-legacy", "--legacy")
		atExit(stopA25)
		sessions = h.connectApify(peerHome, a26, a25)
		atExit(func() { h.closeApify(peerHome, sessions) })
	}
	return url26, url25, session25, peerHome, sessions
}

func (h *harness) path(name string) string { return filepath.Join(h.bin, name) }

func (h *harness) peer(name string) string {
	return filepath.Join(h.peers, "node_modules", ".bin", name)
}

// slowRuns is the run count of the one-invocation groups that are not
// start-up's.
func (h *harness) slowRuns() int {
	if h.runs > 0 {
		return h.runs
	}
	return map[bool]int{false: 15, true: 2}[h.quick]
}

// newHome makes an empty HOME; mcpc keeps its config, state and cache under
// it when no XDG variable is set.
func (h *harness) newHome() string {
	h.homeN++
	dir := filepath.Join(h.tmp, "home"+strconv.Itoa(h.homeN))
	check(os.MkdirAll(dir, 0o755))
	return dir
}

func fixed(home string) func() string { return func() string { return home } }

// coldHome returns a function giving a fresh HOME for each cold run: a copy
// of one where mcpc has talked to another server (the same binary with other
// arguments, results cached too), so its directories exist and nothing is
// remembered about the server measured, as for a user meeting a new server.
// A HOME never used would add a few mkdirs that happen once per machine.
//
// Copies are made coldBatch at a time and flushed (sync) before any is used:
// a copy made just before a run leaves the file system busy with it, which
// slows that run's own file operations (a cold call took 20.6 ms instead of
// 19.9 here, medians of 100).
func (h *harness) coldHome(server string) func() string {
	template := h.newHome()
	prime := exec.Command(h.path("mcpc"), "call", "--stdio", shellwords.Quote(server)+" --page-size 1000 --ttl "+ttlMs, "echo", "text=prime")
	prime.Env = []string{"HOME=" + template, "PATH=" + h.basePath}
	if out, err := prime.CombinedOutput(); err != nil {
		die(fmt.Errorf("priming the cold HOME: %v: %s", err, lastLine(string(out))))
	}
	var stock []string
	return func() string {
		if len(stock) == 0 {
			for range coldBatch {
				home := h.newHome()
				if out, err := exec.Command("cp", "-a", template+"/.", home).CombinedOutput(); err != nil {
					die(fmt.Errorf("copying the cold HOME: %v: %s", err, out))
				}
				stock = append(stock, home)
			}
			syscall.Sync()
		}
		home := stock[0]
		stock = stock[1:]
		return home
	}
}

// coldBatch is how many cold HOMEs are copied at a time.
const coldBatch = 32

const (
	ttlMs      = "3600000"
	echoArgs   = `{"text":"hello"}`
	hugeBytes  = 60 << 20
	parallelN  = 50
	hugeWant   = `"truncated": true`
	manyItems  = 1000000
	echoWant   = `hello`
	floodN     = 2000000 // notifications of a flood row
	hugeListN  = 200000  // tools of the huge-list rows
	batchN     = 1000    // lines of the batch-many rows
	hugeListMB = 34      // the size of their tools/list, in MB
	listWant   = `"echo"`
	curlAccept = "Accept: application/json, text/event-stream"
)

func (h *harness) groups(url26, url25, session25, peerHome string, apify map[string]string) []*group {
	k := h.newKit(url26, url25, session25, peerHome, apify)
	g := k.stdioGroups()
	g = append(g, k.httpGroups()...)
	g = append(g, k.batchGroups()...)
	g = append(g, k.hugeGroups()...)
	g = append(g, h.hugeAnyGroups(k.huge)...)
	g = append(g, h.scaleGroups(k.huge)...)
	g = append(g, k.floodGroups()...)
	g = append(g, k.replayGroups()...)
	g = append(g, h.sessionGroups(k.call, k.stdio)...)
	g = append(g, &group{key: "startup", title: "start-up", runs: k.runs, warmup: 3, faults: true, rows: []*row{
		{name: "hello-world Go binary", cmd: cmdSpec{argv: []string{h.path("hello")}, want: "hello"}},
		{name: "the same with the MCP SDK linked in", cmd: cmdSpec{argv: []string{h.path("hellosdk")}, want: "hello"}, note: "the SDK's share"},
		{name: "mcpc --version", cmd: cmdSpec{argv: []string{k.mcpc, "--version"}, want: "mcpc"}},
	}})
	return g
}

// kit is what the groups' rows are made of: the run counts, the programs,
// the HOMEs, the servers' command lines and URLs.
type kit struct {
	h                                *harness
	runs, slow, huge                 int
	mcpc, server, floor, apifyMcpc   string
	cold, warm, warmHTTP, pinnedHome func() string
	peerH                            func() string
	srv, stdio, mcporterStdio        []string
	apify                            map[string]string
	url26, url25, session25          string
}

// newKit makes the HOMEs (a cold one primed first) and the command lines
// the groups share.
func (h *harness) newKit(url26, url25, session25, peerHome string, apify map[string]string) *kit {
	k := &kit{h: h, runs: 30, slow: 15, huge: 5, url26: url26, url25: url25, session25: session25, apify: apify}
	if h.quick {
		k.runs, k.slow, k.huge = 3, 2, 1
	}
	if h.runs > 0 {
		k.runs, k.slow = h.runs, h.runs
	}
	k.mcpc, k.server = h.path("mcpc"), h.path("mcpc-testserver")
	k.floor = h.path("floor")
	k.cold = h.coldHome(k.server)
	k.warm = fixed(h.newHome())
	k.warmHTTP = fixed(h.newHome())
	k.pinnedHome = fixed(h.newHome())
	k.peerH = fixed(peerHome)
	// Every server marks its lists fresh for an hour, so a client that
	// keeps them across invocations may: what "warm" rows are about.
	k.srv = []string{k.server, "--ttl", ttlMs}
	k.stdio = []string{"--stdio", shellwords.Quote(k.server) + " --ttl " + ttlMs}
	k.mcporterStdio = []string{"--stdio", k.server, "--stdio-arg", "--ttl", "--stdio-arg", ttlMs}
	k.apifyMcpc = h.peer("mcpc") // also called mcpc: always by path
	return k
}

// call is mcpc call echo text=hello with extra before the tool.
func (k *kit) call(extra ...string) []string {
	return append(append([]string{k.mcpc, "call"}, extra...), "echo", "text=hello")
}

// list is mcpc list tools with extra before the kind.
func (k *kit) list(extra ...string) []string {
	return append(append([]string{k.mcpc, "list"}, extra...), "tools")
}

// inspector is the inspector's CLI run with rest against target.
func (k *kit) inspector(target []string, rest ...string) []string {
	argv := append([]string{k.h.peer("mcp-inspector"), "--cli"}, rest...)
	return append(append(argv, "--"), target...)
}

// stdioGroups are tools/call and tools/list over stdio.
func (k *kit) stdioGroups() []*group {
	var g []*group
	// --- stdio: call -----------------------------------------------------
	g = append(g, &group{key: "stdio-call", title: "`tools/call` over stdio (in-repo Go server, 2026-07-28)", runs: k.slow, warmup: 1, rows: k.h.withPeers([]*row{
		{name: "floor: spawn, server/discover, tools/call", cmd: cmdSpec{argv: append([]string{k.floor}, k.srv...), want: echoWant}},
		{name: "floor: spawn, tools/call only", cmd: cmdSpec{argv: append([]string{k.floor, "-call-only"}, k.srv...), want: echoWant}, note: "what a client that remembers the era must do"},
		{name: "mcpc call, cold (first contact with this server)", cmd: cmdSpec{argv: k.call(k.stdio...), home: k.cold, want: echoWant}},
		{name: "mcpc call, warm", cmd: cmdSpec{argv: k.call(k.stdio...), home: k.warm, want: echoWant}},
		{name: "mcpc call --protocol 2026-07-28", cmd: cmdSpec{argv: k.call(append(k.stdio, "--protocol", "2026-07-28")...), home: k.pinnedHome, want: echoWant}},
		{name: "mcpc call --no-cache, warm", cmd: cmdSpec{argv: k.call(append(k.stdio, "--no-cache")...), home: k.warm, want: echoWant}, note: "the yardstick of --record, which asks the cache nothing"},
		{name: "mcpc call --record FILE, warm", cmd: cmdSpec{argv: k.call(append(k.stdio, "--record", filepath.Join(k.h.tmp, "record.jsonl"))...), home: k.warm, want: echoWant}, note: "target: within 1.05× of --no-cache"},
	}, []*row{
		{name: "mcporter 0.12.3 call --stdio", cmd: cmdSpec{argv: append(append([]string{k.h.peer("mcporter"), "call"}, k.mcporterStdio...), "--tool", "echo", "--args", echoArgs), home: k.peerH, want: echoWant}},
		{name: "@apify/mcpc 0.2.6 @session tools-call", cmd: cmdSpec{argv: []string{k.apifyMcpc, "--json", k.apify["stdio"], "tools-call", "echo", "text:=hello"}, home: k.peerH, want: echoWant}, note: "session connected first; its bridge process is not counted"},
		{name: "inspector 2.12.0 --cli tools/call", cmd: cmdSpec{argv: k.inspector(k.srv, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hello"), home: k.peerH, want: echoWant}},
	})})
	// --- stdio: list -----------------------------------------------------
	g = append(g, &group{key: "stdio-list", title: "`tools/list` over stdio", runs: k.slow, warmup: 1, rows: k.h.withPeers([]*row{
		{name: "floor: spawn, server/discover, tools/list", cmd: cmdSpec{argv: append([]string{k.floor, "-list"}, k.srv...), want: listWant}},
		{name: "mcpc list, cold", cmd: cmdSpec{argv: k.list(k.stdio...), home: k.cold, want: listWant}},
		{name: "mcpc list, warm", cmd: cmdSpec{argv: k.list(k.stdio...), home: k.warm, want: listWant}},
		{name: "mcpc list --protocol 2026-07-28", cmd: cmdSpec{argv: k.list(append(k.stdio, "--protocol", "2026-07-28")...), home: k.pinnedHome, want: listWant}},
	}, []*row{
		{name: "mcporter list --stdio --json", cmd: cmdSpec{argv: append(append([]string{k.h.peer("mcporter"), "list"}, k.mcporterStdio...), "--json"), home: k.peerH, want: listWant}},
		{name: "@apify/mcpc @session tools-list", cmd: cmdSpec{argv: []string{k.apifyMcpc, "--json", k.apify["stdio"], "tools-list"}, home: k.peerH, want: listWant}},
		{name: "inspector --cli tools/list", cmd: cmdSpec{argv: k.inspector(k.srv, "--method", "tools/list"), home: k.peerH, want: listWant}},
	})})
	return g
}

// httpGroups are tools/call and tools/list over Streamable HTTP, for each
// era the server may speak.
func (k *kit) httpGroups() []*group {
	var g []*group
	for _, era := range []struct{ version, url, session string }{
		{"2026-07-28", k.url26, ""},
		{"2025-11-25", k.url25, k.session25},
	} {
		curlNote := "the one request a warm call needs"
		if era.session != "" {
			curlNote = "HTTP session opened beforehand (a 2025 client must initialize first)"
		}
		key, goPostSkip := "h26", ""
		if era.version == "2025-11-25" {
			key, goPostSkip = "h25", "2026-07-28 only (a 2025 request needs the HTTP session curl's row borrows)"
		}
		g = append(g, &group{key: "http-" + era.version, title: "`tools/call` over Streamable HTTP on loopback, server speaking " + era.version, runs: k.slow, warmup: 1, rows: k.h.withPeers([]*row{
			{name: "curl: POST tools/call", cmd: cmdSpec{argv: curlCall(era.version, era.url, era.session), want: echoWant, server: era.url}, note: curlNote},
			{name: "floor: one POST from a small Go program", cmd: cmdSpec{argv: []string{k.floor, "-url", era.url}, want: echoWant, server: era.url}, skip: goPostSkip},
			{name: "mcpc call, cold", cmd: cmdSpec{argv: k.call(era.url), home: k.cold, want: echoWant, server: era.url}},
			{name: "mcpc call, warm", cmd: cmdSpec{argv: k.call(era.url), home: k.warmHTTP, want: echoWant, server: era.url}},
			{name: "mcpc call --protocol " + era.version, cmd: cmdSpec{argv: k.call(era.url, "--protocol", era.version), home: k.pinnedHome, want: echoWant, server: era.url}},
		}, []*row{
			{name: "mcporter call --http-url", cmd: cmdSpec{argv: []string{k.h.peer("mcporter"), "call", "--http-url", era.url, "--allow-http", "--tool", "echo", "--args", echoArgs}, home: k.peerH, want: echoWant, server: era.url}},
			{name: "@apify/mcpc @session tools-call", cmd: cmdSpec{argv: []string{k.apifyMcpc, "--json", k.apify[key], "tools-call", "echo", "text:=hello"}, home: k.peerH, want: echoWant, server: k.apify[key+"-url"]}, note: "a server process of its own, so its bridge's keep-alive requests stay out of the other rows"},
			{name: "inspector --cli tools/call", cmd: cmdSpec{argv: k.inspector([]string{era.url}, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hello"), home: k.peerH, want: echoWant, server: era.url}},
		})})
		g = append(g, &group{key: "http-list-" + era.version, title: "`tools/list` over Streamable HTTP on loopback, server speaking " + era.version, runs: k.slow, warmup: 1, rows: k.h.withPeers([]*row{
			{name: "curl: POST tools/list", cmd: cmdSpec{argv: curlList(era.version, era.url, era.session), want: listWant, server: era.url}, note: strings.ReplaceAll(curlNote, "call", "list")},
			{name: "floor: one POST from a small Go program", cmd: cmdSpec{argv: []string{k.floor, "-url", era.url, "-list"}, want: listWant, server: era.url}, skip: goPostSkip},
			{name: "mcpc list, cold", cmd: cmdSpec{argv: k.list(era.url), home: k.cold, want: listWant, server: era.url}},
			{name: "mcpc list, warm", cmd: cmdSpec{argv: k.list(era.url), home: k.warmHTTP, want: listWant, server: era.url}},
			{name: "mcpc list --protocol " + era.version, cmd: cmdSpec{argv: k.list(era.url, "--protocol", era.version), home: k.pinnedHome, want: listWant, server: era.url}},
		}, []*row{
			{name: "mcporter list --http-url --json", cmd: cmdSpec{argv: []string{k.h.peer("mcporter"), "list", "--http-url", era.url, "--allow-http", "--json"}, home: k.peerH, want: listWant, server: era.url}},
			{name: "@apify/mcpc @session tools-list", cmd: cmdSpec{argv: []string{k.apifyMcpc, "--json", k.apify[key], "tools-list"}, home: k.peerH, want: listWant, server: k.apify[key+"-url"]}, note: "a server process of its own, so its bridge's keep-alive requests stay out of the other rows"},
			{name: "inspector --cli tools/list", cmd: cmdSpec{argv: k.inspector([]string{era.url}, "--method", "tools/list"), home: k.peerH, want: listWant, server: era.url}},
		})})
	}
	return g
}

// batchGroups are mcpc call --batch and concurrent calls.
func (k *kit) batchGroups() []*group {
	var g []*group
	haveBatch := k.h.mcpcHas("call", "--batch")
	batch := &group{key: "batch", title: "ten calls through `mcpc call --batch` next to ten invocations (stdio)", runs: k.slow, warmup: 1, rows: []*row{
		{name: "ten `mcpc call` invocations, warm, from one sh", skip: "`mcpc call --batch` does not exist yet (shell-integration issue)"},
		{name: "`mcpc call --batch`, ten lines, warm", skip: "`mcpc call --batch` does not exist yet (shell-integration issue)"},
	}}
	if haveBatch {
		lines := strings.Repeat(`{"tool":"echo","arguments":`+echoArgs+"}\n", 10)
		file := filepath.Join(k.h.tmp, "batch.jsonl")
		check(os.WriteFile(file, []byte(lines), 0o644))
		one := shellwords.Join(k.call(k.stdio...))
		batch.rows[0] = &row{name: batch.rows[0].name, note: "one sh process around them",
			cmd: cmdSpec{argv: []string{"/bin/sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10; do " + one + " || exit; done"}, home: k.warm, want: echoWant}}
		batch.rows[1] = &row{name: batch.rows[1].name,
			cmd: cmdSpec{argv: append([]string{k.mcpc, "call"}, append(k.stdio, "--batch", file)...), home: k.warm, want: echoWant}}
	}
	g = append(g, batch)
	if haveBatch {
		lines := strings.Repeat(`{"tool":"echo","arguments":`+echoArgs+"}\n", batchN)
		file := filepath.Join(k.h.tmp, "batch-many.jsonl")
		check(os.WriteFile(file, []byte(lines), 0o644))
		g = append(g, &group{key: "batch-many", title: fmt.Sprintf("%d calls through `mcpc call --batch` (stdio)", batchN), runs: k.huge, warmup: 1, rows: []*row{
			{name: fmt.Sprintf("floor: the same %d exchanges over one pipe", batchN), cmd: cmdSpec{argv: append([]string{k.floor, "-call-only", "-repeat", strconv.Itoa(batchN)}, k.srv...), want: echoWant}},
			{name: fmt.Sprintf("`mcpc call --batch`, %d lines, warm", batchN), cmd: cmdSpec{argv: append([]string{k.mcpc, "call"}, append(k.stdio, "--batch", file)...), home: k.warm, want: echoWant}},
		}})
	}
	g = append(g, &group{key: "parallel", title: fmt.Sprintf("%d concurrent calls over stdio (each its own server)", parallelN), runs: max(2, k.huge), warmup: 1, rows: []*row{
		{name: fmt.Sprintf("%d × floor at once", parallelN), cmd: cmdSpec{argv: append([]string{k.floor}, k.srv...), want: echoWant, parallel: parallelN}},
		{name: fmt.Sprintf("%d × mcpc call at once, warm", parallelN), cmd: cmdSpec{argv: k.call(k.stdio...), home: k.warm, want: echoWant, parallel: parallelN}},
	}})
	return g
}

// hugeGroups are a huge result, a result of many items and a huge tool
// list.
func (k *kit) hugeGroups() []*group {
	var g []*group
	hugeArgs := fmt.Sprintf(`{"bytes":%d}`, hugeBytes)
	hugeCall := func(target ...string) []string {
		return append(append([]string{k.mcpc, "call"}, target...), "huge", "bytes:="+strconv.Itoa(hugeBytes))
	}
	g = append(g, &group{key: "huge", title: "a 60 MiB tool result, default bounding (50 KiB inline, the rest to an overflow file)", runs: k.huge, warmup: 1, rows: []*row{
		{name: "floor over stdio (streams the line to stdout)", cmd: cmdSpec{argv: append([]string{k.floor, "-tool", "huge", "-args", hugeArgs}, k.srv...), want: `line 000001`}},
		{name: "mcpc call over stdio", cmd: cmdSpec{argv: hugeCall(k.stdio...), home: k.warm, want: hugeWant, ownRSS: true}, note: "RSS: mcpc alone (the server holds the result too)"},
		{name: "curl: POST tools/call (2026-07-28)", cmd: cmdSpec{argv: curlHuge(k.url26), want: `line 000001`, server: k.url26}},
		{name: "mcpc call over HTTP (2026-07-28)", cmd: cmdSpec{argv: hugeCall(k.url26), home: k.warmHTTP, want: hugeWant, server: k.url26}},
		{name: "mcpc call over HTTP (2025-11-25)", cmd: cmdSpec{argv: hugeCall(k.url25), home: k.warmHTTP, want: hugeWant, server: k.url25}},
		// Each line's number coloured: the message is 70 MB with its escapes.
		{name: "mcpc call --text over stdio, escapes stripped", cmd: cmdSpec{argv: hugeCall("--text", "--max-message", "128MiB", "--stdio", shellwords.Quote(k.server)+" --ttl "+ttlMs+" --huge-escapes"), home: k.warm, want: `[truncated`, ownRSS: true}, note: "RSS: mcpc alone"},
		{name: "mcpc call --query content.0.text over stdio", cmd: cmdSpec{argv: hugeCall(append([]string{"--query", "content.0.text"}, k.stdio...)...), home: k.warm, want: `…[truncated]`, ownRSS: true}, note: "RSS: mcpc alone"},
		{name: "mcpc call --text --query content.0.text over stdio", cmd: cmdSpec{argv: hugeCall(append([]string{"--text", "--query", "content.0.text"}, k.stdio...)...), home: k.warm, want: `[truncated`, ownRSS: true}, note: "RSS: mcpc alone"},
	}})
	manyCall := func(target ...string) []string {
		return append(append([]string{k.mcpc, "call"}, target...), "many", "count:="+strconv.Itoa(manyItems))
	}
	g = append(g, &group{key: "huge-items", title: "a tool result of one million small content items (37 MB), default bounding", runs: k.huge, warmup: 1, rows: []*row{
		{name: "mcpc call over stdio", cmd: cmdSpec{argv: manyCall(k.stdio...), home: k.warm, want: hugeWant, ownRSS: true}, note: "RSS: mcpc alone"},
		{name: "mcpc call over HTTP (2026-07-28)", cmd: cmdSpec{argv: manyCall(k.url26), home: k.warmHTTP, want: hugeWant, server: k.url26}},
		{name: "mcpc call over HTTP (2025-11-25)", cmd: cmdSpec{argv: manyCall(k.url25), home: k.warmHTTP, want: hugeWant, server: k.url25}},
	}})
	// --- a huge tool list ---------------------------------------------------
	many := []string{k.server, "--tools", strconv.Itoa(hugeListN)}
	manyStdio := []string{"--stdio", shellwords.Join(many)}
	g = append(g, &group{key: "huge-list", title: fmt.Sprintf("a server of %d tools (a tools/list of about %d MB), stdio", hugeListN, hugeListMB), runs: k.huge, warmup: 1, rows: []*row{
		{name: "floor: the list through a pipe", cmd: cmdSpec{argv: append([]string{k.floor, "-list", "-call-only"}, many...), want: `"tool-1"`}},
		{name: "mcpc list --json", cmd: cmdSpec{argv: append(append([]string{k.mcpc, "list", "--json"}, manyStdio...), "tools"), home: k.warm, want: `"tool-1"`, ownRSS: true}, note: "RSS: mcpc alone; output bounded (50 KiB inline)"},
		{name: "mcpc list --text", cmd: cmdSpec{argv: append(append([]string{k.mcpc, "list", "--text"}, manyStdio...), "tools"), home: k.warm, want: `tool-1`, ownRSS: true}, note: "RSS: mcpc alone"},
		{name: "mcpc call of one of its tools", cmd: cmdSpec{argv: append(append([]string{k.mcpc, "call"}, manyStdio...), "tool-199999", "query=x"), home: k.warm, want: `tool-199999`, ownRSS: true}, note: "RSS: mcpc alone"},
	}})
	return g
}

// floodGroups are a chatty server's notifications before the result.
func (k *kit) floodGroups() []*group {
	var g []*group
	for _, kind := range []string{"log", "progress"} {
		flood := []string{k.server, "--notify", strconv.Itoa(floodN), "--notify-kind", kind}
		what := map[string]string{"log": "log messages (debug, below the default --log-level)", "progress": "progress notifications"}[kind]
		g = append(g, &group{key: "flood-" + kind, title: fmt.Sprintf("%d %s before the result (stdio)", floodN, what), runs: k.huge, warmup: 1, rows: []*row{
			{name: "floor: the same bytes through a pipe, the result copied", cmd: cmdSpec{argv: append([]string{k.floor, "-call-only"}, flood...), want: echoWant}},
			{name: "mcpc call, warm", cmd: cmdSpec{argv: k.call("--stdio", shellwords.Join(flood)), home: k.warm, want: echoWant, ownRSS: true}, note: "RSS: mcpc alone"},
			{name: "mcpc call, warm, no flood (idle)", cmd: cmdSpec{argv: k.call(k.stdio...), home: k.warm, want: echoWant, ownRSS: true}, note: "RSS: mcpc alone"},
		}})
	}
	return g
}

// sessionGroups are one tools/call through a session (mcpc session
// start, held for the whole run) for the in-repo server and for
// server-everything run by node. The first row is the floor: bench/floor
// making the same exchange on the session's socket (the handshake its
// holder answers, then the call), so the ratio column is each row's share
// of it; beside it the one-shot that starts the server and, for
// server-everything, the peers' held connections (inspector's mcpdo
// daemon, mcporter's keep-alive daemon, @apify/mcpc's session bridge),
// each connected before the first run. Each group keeps its holder's
// resident memory, idle, besides its server.
func (h *harness) sessionGroups(call func(...string) []string, stdio []string) []*group {
	mcpc := h.path("mcpc")
	home := h.newHome()
	skip := ""
	if !h.mcpcHas("session", "start") {
		skip = "this mcpc has no sessions"
	}
	// start is startSession, unless this mcpc has no sessions.
	start := func(name, command string, args ...string) (floor []string, holderKiB int64) {
		if skip != "" {
			return nil, 0
		}
		return h.startSession(home, name, command, args...)
	}
	atExit(func() {
		if skip == "" {
			h.command(cmdSpec{argv: []string{mcpc, "session", "stop", "--all"}, home: fixed(home)}).Run()
		}
	})
	runs := map[bool]int{false: 15, true: 2}[h.quick]
	if h.runs > 0 {
		runs = h.runs
	}
	held := func(name string, args ...string) []string {
		return append([]string{mcpc, "call", name}, args...)
	}
	holderNote := func(kib int64) string {
		if kib == 0 {
			return ""
		}
		return "its holder, idle: " + mib(kib) + " resident besides the server"
	}
	goFloor, goHolder := start("go", stdio[1])
	floorName := "floor: the session's socket, server/discover (answered by the holder), tools/call"
	groups := []*group{{key: "session-go", title: "`tools/call` through a session next to its floor and the one-shot (in-repo Go server, stdio)", runs: runs, warmup: 1, holder: goHolder, rows: []*row{
		{name: floorName, cmd: cmdSpec{argv: goFloor, want: echoWant}, note: "a small Go program; the server already running", skip: skip},
		{name: "mcpc call through a session", cmd: cmdSpec{argv: held("go", "echo", "text=hello"), home: fixed(home), want: echoWant}, note: holderNote(goHolder), skip: skip},
		{name: "mcpc call, one-shot (starts the server)", cmd: cmdSpec{argv: call(stdio...), home: fixed(h.newHome()), want: echoWant}},
	}}}
	ev := &group{key: "session-everything", title: "`tools/call echo` through a session next to its floor, the one-shot and the peers' held connections (server-everything, node, stdio)", runs: runs, warmup: 1}
	if h.everything == "" || h.node == "" {
		ev.rows = []*row{{name: "server-everything", skip: "no server-everything (-everything, -node)"}}
		return append(groups, ev)
	}
	node := filepath.Join(h.node, "node")
	command := shellwords.Quote(node) + " " + shellwords.Quote(h.everything) + " stdio"
	evFloor, evHolder := start("ev", command, "-args", `{"message":"hello"}`)
	ev.holder = evHolder
	if slices.Contains(evFloor, "-legacy") {
		floorName = strings.Replace(floorName, "server/discover", "initialize", 1)
	}
	ev.rows = []*row{
		{name: floorName, cmd: cmdSpec{argv: evFloor, want: "Echo: hello"}, note: "a small Go program; the server already running", skip: skip},
		{name: "mcpc call through a session", cmd: cmdSpec{argv: held("ev", "echo", "message=hello"), home: fixed(home), want: "Echo: hello"}, note: holderNote(evHolder), skip: skip},
		{name: "mcpc call, one-shot (starts node and the server)", cmd: cmdSpec{argv: []string{mcpc, "call", "--server-stderr", "hide", "--stdio", command, "echo", "message=hello"}, home: fixed(h.newHome()), want: "Echo: hello"}},
	}
	ev.rows = append(ev.rows, h.heldPeers(node)...)
	return append(groups, ev)
}

// startSession starts session name, with HOME home, holding command, and
// returns the floor's command line (with args) for its socket (which
// speaks the holder's revision) and its holder's resident memory.
func (h *harness) startSession(home, name, command string, args ...string) (floor []string, holderKiB int64) {
	mcpc := h.path("mcpc")
	cmd := h.command(cmdSpec{argv: []string{mcpc, "session", "start", "--json", "--idle", "0", "--name", name, "--stdio", command}, home: fixed(home)})
	if _, err := cmd.Output(); err != nil {
		die(fmt.Errorf("mcpc session start %s: %v", name, err))
	}
	// The record says where the holder listens and what it speaks
	// (HOME without XDG_STATE_HOME: mcpc's state is under it).
	b, err := os.ReadFile(filepath.Join(home, ".local", "state", "mcpc", "sessions", name, "record.json"))
	check(err)
	var rec struct {
		PID              int
		Socket, Revision string
	}
	check(json.Unmarshal(b, &rec))
	floor = []string{h.path("floor"), "-socket", rec.Socket}
	if rec.Revision != "2026-07-28" {
		floor = append(floor, "-legacy")
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", rec.PID)); err == nil {
		holderKiB, _ = statusField(b, "VmRSS:")
	}
	return append(floor, args...), holderKiB
}

// heldPeerNames start the names of the peers' held-connection rows.
var heldPeerNames = []string{"inspector 2.12.0 mcpdo", "mcporter 0.12.3 keep-alive", "@apify/mcpc 0.2.6 session"}

// heldPeers are the peers' held connections to server-everything (run by
// node over stdio), connected as their users connect them before the first
// run, and ended when the harness ends: inspector's mcpdo daemon,
// mcporter's keep-alive daemon and @apify/mcpc's session bridge.
func (h *harness) heldPeers(node string) []*row {
	rows := []*row{
		{name: heldPeerNames[0] + " @ev tools/call", note: "its daemon, connected first, is not counted"},
		{name: heldPeerNames[1] + " call ev.echo", note: "its daemon, started by a first call, is not counted"},
		{name: heldPeerNames[2] + " @ev tools-call", note: "its bridge, connected first, is not counted"},
	}
	if h.peers == "" {
		return h.withPeers(nil, rows)
	}
	home := fixed(h.newHome())
	server := `{"command":` + strconv.Quote(node) + `,"args":[` + strconv.Quote(h.everything) + `,"stdio"]`
	mcporterCfg := filepath.Join(home(), "mcporter.json")
	check(os.WriteFile(mcporterCfg, []byte(`{"mcpServers":{"ev":`+server+`,"lifecycle":"keep-alive"}}}`), 0o644))
	apifyCfg := filepath.Join(home(), "servers.json")
	check(os.WriteFile(apifyCfg, []byte(`{"mcpServers":{"ev":`+server+`}}}`), 0o644))
	mcpdo, mcporter, apify := h.peer("mcpdo"), h.peer("mcporter"), h.peer("mcpc")
	rows[0].cmd = cmdSpec{argv: []string{mcpdo, "@ev", "tools/call", "echo", "message:=hello"}, home: home, want: "Echo: hello"}
	rows[1].cmd = cmdSpec{argv: []string{mcporter, "--config", mcporterCfg, "call", "ev.echo", "message=hello"}, home: home, want: "Echo: hello"}
	rows[2].cmd = cmdSpec{argv: []string{apify, "--json", "@bench-ev", "tools-call", "echo", "message:=hello"}, home: home, want: "Echo: hello"}
	connect := [][]string{
		{mcpdo, "connect", "--connection", "ev", "--", node, h.everything, "stdio"},
		rows[1].cmd.argv, // the first call starts mcporter's daemon
		{apify, "connect", apifyCfg + ":ev", "@bench-ev"},
	}
	for i, argv := range connect {
		if out, err := h.command(cmdSpec{argv: argv, home: home}).CombinedOutput(); err != nil {
			rows[i].skip = fmt.Sprintf("could not connect: %v: %s", err, lastLine(string(out)))
		}
	}
	atExit(func() {
		for _, argv := range [][]string{{mcpdo, "daemon", "stop"}, {mcporter, "--config", mcporterCfg, "daemon", "stop"}, {apify, "close", "@bench-ev"}} {
			h.command(cmdSpec{argv: argv, home: home}).Run()
		}
	})
	return rows
}

// withPeers appends the npm peers' rows when they are installed.
func (h *harness) withPeers(own, peers []*row) []*row {
	if h.peers == "" {
		for _, r := range peers {
			r.skip = "npm peers not installed (-peers)"
		}
	}
	return append(own, peers...)
}

// mcpcHas reports whether `mcpc SUB --help` mentions flag.
func (h *harness) mcpcHas(sub, flag string) bool {
	out, _ := exec.Command(h.path("mcpc"), sub, "--help").CombinedOutput()
	return bytes.Contains(out, []byte(flag))
}

func curlArgs(version, url string, headers ...string) []string {
	argv := []string{"curl", "-sS", "--fail", "-H", "Content-Type: application/json", "-H", curlAccept,
		"-H", "MCP-Protocol-Version: " + version}
	for _, hd := range headers {
		argv = append(argv, "-H", hd)
	}
	return append(argv, url)
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"curl","version":"0"}}`

func curlCall(version, url, session string) []string {
	return curlRequest(version, url, session, "tools/call", `"name":"echo","arguments":`+echoArgs)
}

func curlList(version, url, session string) []string {
	return curlRequest(version, url, session, "tools/list", "")
}

// curlRequest posts one request: in a 2025-11-25 session, or carrying the
// 2026-07-28 _meta envelope and headers.
func curlRequest(version, url, session, method, params string) []string {
	if session != "" {
		body := `{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":{` + params + `}}`
		return append(curlArgs(version, url, "Mcp-Session-Id: "+session), "-d", body)
	}
	headers := []string{"Mcp-Method: " + method}
	if method == "tools/call" {
		headers = append(headers, "Mcp-Name: echo")
	}
	if params != "" {
		params += ","
	}
	body := `{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":{` + params + modernMeta + `}}`
	return append(curlArgs(version, url, headers...), "-d", body)
}

func curlHuge(url string) []string {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"huge","arguments":{"bytes":%d},%s}}`, hugeBytes, modernMeta)
	return append(curlArgs("2026-07-28", url, "Mcp-Method: tools/call", "Mcp-Name: huge"), "-d", body)
}

// runGroup checks each command once, then runs warm-up and measured rounds.
func (h *harness) runGroup(g *group) {
	fmt.Fprintf(os.Stderr, "harness: %s (%d runs)\n", g.title, g.runs)
	var live []*row
	for _, r := range g.rows {
		if r.skip != "" {
			continue
		}
		if err := h.checkRow(r); err != nil {
			r.skip = "failed: " + oneLine(err.Error())
			fmt.Fprintf(os.Stderr, "harness: %s: %v\n", r.name, err)
			continue
		}
		live = append(live, r)
	}
	for i := 0; i < g.warmup+g.runs; i++ {
		for _, r := range live {
			m := h.measure(r.cmd)
			if i < g.warmup {
				continue
			}
			r.wall, r.cpu, r.rss, r.faults = append(r.wall, m.wall), append(r.cpu, m.cpu), append(r.rss, m.rssKiB), append(r.faults, m.faults)
			r.failures += m.failures
		}
	}
}

// checkRow runs the command twice with its output captured (the first run
// primes a warm row's state): a command that fails or prints the wrong thing
// is reported, not timed. The second run's HTTP requests are counted.
func (h *harness) checkRow(r *row) error {
	for i := range 2 {
		before := h.requestCount(r.cmd.server)
		cmd := h.command(r.cmd)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%v: %s", err, lastLine(errb.String()))
		}
		if !bytes.Contains(out.Bytes(), []byte(r.cmd.want)) {
			return fmt.Errorf("output lacks %q: %.200s", r.cmd.want, out.String())
		}
		if i == 1 {
			r.requests = h.requestCount(r.cmd.server) - before
		}
	}
	return nil
}

// requestCount is how many requests the test server at url has logged.
func (h *harness) requestCount(url string) int {
	if url == "" {
		return 0
	}
	data, _ := os.ReadFile(h.requestLogs[url])
	return bytes.Count(data, []byte("\n"))
}

func (h *harness) command(c cmdSpec) *exec.Cmd {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	home := h.tmp
	if c.home != nil {
		home = c.home()
	}
	cmd.Env = []string{"HOME=" + home, "PATH=" + h.basePath, "LANG=C.UTF-8"}
	return cmd
}

// spawner is bench/spawn, which forks the measured commands: a child's
// peak RSS includes the memory of whoever forked it, and the harness is
// bigger than some of the things it measures.
type spawner struct {
	in  io.Writer
	out *bufio.Reader
}

func (h *harness) startSpawner() {
	cmd := exec.Command(h.path("spawn"))
	in, err := cmd.StdinPipe()
	check(err)
	out, err := cmd.StdoutPipe()
	check(err)
	cmd.Stderr = os.Stderr
	check(cmd.Start())
	h.spawn = &spawner{in: in, out: bufio.NewReader(out)}
}

type measurement struct {
	wall, cpu      time.Duration
	rssKiB, faults int64
	failures       int
}

// measure runs the command (or its parallel copies) once with output to
// /dev/null.
func (h *harness) measure(c cmdSpec) measurement {
	cmd := h.command(c) // for its resolved argv and environment
	own := "0"
	if c.ownRSS {
		own = "1"
	}
	fields := []string{strconv.Itoa(max(1, c.parallel)), own, strconv.Itoa(len(cmd.Env))}
	fields = append(append(fields, cmd.Env...), cmd.Path)
	fields = append(fields, cmd.Args[1:]...)
	_, err := io.WriteString(h.spawn.in, strings.Join(fields, "\x00")+"\n")
	check(err)
	line, err := h.spawn.out.ReadString('\n')
	check(err)
	var m measurement
	var wall, cpu int64
	if _, err := fmt.Sscan(line, &wall, &cpu, &m.rssKiB, &m.failures, &m.faults); err != nil {
		die(fmt.Errorf("spawn: %s", strings.TrimSpace(line)))
	}
	m.wall, m.cpu = time.Duration(wall), time.Duration(cpu)
	return m
}

func statusField(data []byte, key string) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0, false
			}
			v, err := strconv.ParseInt(f[0], 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}

// startHTTP starts the test server on a loopback port and returns its URL
// and a function that stops it.
func (h *harness) startHTTP(name, mode string) (string, func()) {
	reqLog := filepath.Join(h.tmp, "requests-"+name)
	url, stop := h.serveHTTP(h.path("mcpc-testserver"), name, mode, "--header-log", reqLog, "--ttl", ttlMs)
	h.requestLogs[url] = reqLog
	return url, stop
}

// serveHTTP starts server (the test server or bench/listserver) with args
// on a loopback port and returns its URL and a function that stops it.
func (h *harness) serveHTTP(server, name string, args ...string) (string, func()) {
	urlFile := filepath.Join(h.tmp, "url-"+name)
	cmd := exec.Command(server, append([]string{"--http", "127.0.0.1:0", "--url-file", urlFile}, args...)...)
	check(cmd.Start())
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}
	for range 500 {
		if data, err := os.ReadFile(urlFile); err == nil && len(data) > 0 {
			return strings.TrimSpace(string(data)), stop
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	die(errors.New("test server did not write its URL"))
	return "", nil
}

// openLegacySession initializes a 2025-11-25 session for curl to use.
func openLegacySession(url string) string {
	post := func(body string, session string) *http.Response {
		req, err := http.NewRequest("POST", url, strings.NewReader(body))
		check(err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		check(err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}`, "")
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		die(errors.New("legacy server gave no Mcp-Session-Id"))
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, id)
	return id
}

// connectApify starts @apify/mcpc's sessions (stdio, and HTTP in both eras)
// as its users do before calling tools; it returns their @names.
func (h *harness) connectApify(home, url26, url25 string) map[string]string {
	if h.peers == "" {
		return nil
	}
	cfg := filepath.Join(home, "servers.json")
	check(os.WriteFile(cfg, []byte(`{"mcpServers":{"ts":{"command":`+strconv.Quote(h.path("mcpc-testserver"))+`,"args":["--ttl","`+ttlMs+`"]}}}`), 0o644))
	sessions := map[string]string{"stdio": "@bench-stdio", "h26": "@bench-h26", "h25": "@bench-h25"}
	targets := map[string]string{"stdio": cfg + ":ts", "h26": url26, "h25": url25}
	for k, name := range sessions {
		sessions[k+"-url"] = targets[k]
		cmd := h.command(cmdSpec{argv: []string{h.peer("mcpc"), "connect", targets[k], name}, home: fixed(home)})
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "harness: @apify/mcpc connect %s: %v: %s\n", name, err, lastLine(string(out)))
		}
	}
	return sessions
}

func (h *harness) closeApify(home string, sessions map[string]string) {
	for _, name := range sessions {
		if !strings.HasPrefix(name, "@") {
			continue
		}
		h.command(cmdSpec{argv: []string{h.peer("mcpc"), "close", name}, home: fixed(home)}).Run()
	}
}

// --- statistics and output -------------------------------------------------

// find returns the measured row of group key whose name starts with name.
func find(groups []*group, key, name string) *row {
	for _, g := range groups {
		if g.key != key {
			continue
		}
		for _, r := range g.rows {
			if strings.HasPrefix(r.name, name) && r.skip == "" && len(r.wall) > 0 {
				return r
			}
		}
	}
	return nil
}

// targets sets this run against the targets of the benchmarks issue.
func targets(groups []*group, st *serveTables) []string {
	t := &targetTable{groups: groups, lines: []string{"| target | this run | met |", "|---|--:|:-:|"}}
	t.callTargets()
	t.sessionTargets()
	v, ok := t.ratio("startup", "mcpc --version", "hello-world")
	t.add("`mcpc --version` ≤ 1.8× a hello-world Go binary", v, ok, "%.2f×", 1.8)
	t.hugeListTargets()
	t.hugeAnyTargets()
	t.floodTargets()
	t.hugeResultTargets()
	st.targets(t)
	return t.lines
}

// targetTable is the table of targets as it is written: a line a target.
type targetTable struct {
	groups []*group
	lines  []string
}

// ratio is the median wall time of group key's row a over its row b
// (each named by a prefix); false when either was not measured.
func (t *targetTable) ratio(key, a, b string) (float64, bool) {
	ra, rb := find(t.groups, key, a), find(t.groups, key, b)
	if ra == nil || rb == nil {
		return 0, false
	}
	return float64(median(ra.wall)) / float64(median(rb.wall)), true
}

// add writes target what, met when got (in unit) is at most limit.
func (t *targetTable) add(what string, got float64, ok bool, unit string, limit float64) {
	if !ok {
		t.lines = append(t.lines, fmt.Sprintf("| %s | not measured | — |", what))
		return
	}
	met := "no"
	if got <= limit {
		met = "yes"
	}
	t.lines = append(t.lines, fmt.Sprintf("| %s | "+unit+" | %s |", what, got, met))
}

// callTargets are a small call's, over stdio and HTTP, against the floor,
// curl and its memory.
func (t *targetTable) callTargets() {
	floor := "floor: spawn, server/discover"
	v, ok := t.ratio("stdio-call", "mcpc call, warm", floor)
	t.add("warm `mcpc call` (stdio) ≤ 1.15× the floor", v, ok, "%.2f×", 1.15)
	v, ok = t.ratio("stdio-call", "mcpc call, cold", floor)
	t.add("cold `mcpc call` (stdio) ≤ 1.3× the floor", v, ok, "%.2f×", 1.3)
	if r := find(t.groups, "http-2026-07-28", "mcpc call, warm"); r != nil {
		t.add("warm `mcpc call` over HTTP: one request", float64(r.requests), true, "%.0f", 1)
	}
	v, ok = t.ratio("http-2026-07-28", "mcpc call, warm", "floor: one POST")
	t.add("warm `mcpc call` over HTTP ≤ 1.3× one POST from a small Go program", v, ok, "%.2f×", 1.3)
	v, ok = t.ratio("http-2026-07-28", "mcpc call, warm", "curl")
	t.add("warm `mcpc call` over HTTP ≤ 1.5× curl", v, ok, "%.2f×", 1.5)
	if r := find(t.groups, "stdio-call", "mcpc call, warm"); r != nil {
		t.add("peak RSS of a small `mcpc call` ≤ 15 MiB", float64(slices.Max(r.rss))/1024, true, "%.1f MiB", 15)
	}
}

// sessionTargets are a call through a session's, against its floor, its
// holder's memory and the fastest peer's held connection.
func (t *targetTable) sessionTargets() {
	for _, key := range []string{"session-go", "session-everything"} {
		what := map[string]string{"session-go": "in-repo server", "session-everything": "server-everything"}[key]
		v, ok := t.ratio(key, "mcpc call through a session", "floor")
		t.add("`mcpc call` through a session ≤ 1.3× the floor on its socket ("+what+")", v, ok, "%.2f×", 1.3)
		for _, g := range t.groups {
			if g.key == key && g.holder > 0 {
				t.add("a session's holder, idle, ≤ 15 MiB besides its server ("+what+")", float64(g.holder)/1024, true, "%.1f MiB", 15)
			}
		}
	}
	// The fastest peer's held connection over mcpc's session: at least 10×.
	s := find(t.groups, "session-everything", "mcpc call through a session")
	if s == nil {
		return
	}
	var fastest *row
	for _, name := range heldPeerNames {
		if r := find(t.groups, "session-everything", name); r != nil && (fastest == nil || median(r.wall) < median(fastest.wall)) {
			fastest = r
		}
	}
	what := "`mcpc call` through a session ≥ 10× faster than the fastest peer's held connection (server-everything)"
	if fastest == nil {
		t.add(what, 0, false, "", 0)
		return
	}
	v := float64(median(fastest.wall)) / float64(median(s.wall))
	met := "no"
	if v >= 10 {
		met = "yes"
	}
	t.lines = append(t.lines, fmt.Sprintf("| %s | %.1f× (%s) | %s |", what, v, strings.Fields(fastest.name)[0], met))
}

// hugeListTargets are the huge tool list's memory, and the time a call on
// it takes beyond reading it.
func (t *targetTable) hugeListTargets() {
	for _, r := range []string{"mcpc list --json", "mcpc list --text", "mcpc call of one"} {
		if r := find(t.groups, "huge-list", r); r != nil {
			t.add(fmt.Sprintf("peak RSS of `%s` on the %d MB list ≤ 3 × %d + 20 MiB", r.name, hugeListMB, hugeListMB), float64(slices.Max(r.rss))/1024, true, "%.0f MiB", 3*hugeListMB+20)
		}
	}
	if c, f := find(t.groups, "huge-list", "mcpc call of one"), find(t.groups, "huge-list", "floor"); c != nil && f != nil {
		t.add("`mcpc call` on the huge list: time beyond reading the list (the floor) < 1 s", (median(c.wall) - median(f.wall)).Seconds(), true, "%.2f s", 1)
	}
}

// hugeAnyTargets are one line a huge-any group: its largest row against
// the bound.
func (t *targetTable) hugeAnyTargets() {
	for _, g := range t.groups {
		if !strings.HasPrefix(g.key, "huge-any-") {
			continue
		}
		var worst *row
		for _, r := range g.rows {
			if r.skip == "" && len(r.rss) > 0 && (worst == nil || slices.Max(r.rss) > slices.Max(worst.rss)) {
				worst = r
			}
		}
		if worst != nil {
			t.add(fmt.Sprintf("huge list on any server, %s: peak RSS (largest, `%s`) ≤ 3 × %.1f + 20 MiB", strings.TrimPrefix(g.key, "huge-any-"), worst.name, g.messageMiB), float64(slices.Max(worst.rss))/1024, true, "%.0f MiB", 3*g.messageMiB+20)
		}
	}
}

// floodTargets are a flood of notifications' time against a pipe, and its
// memory against an idle call.
func (t *targetTable) floodTargets() {
	for _, kind := range []string{"log", "progress"} {
		v, ok := t.ratio("flood-"+kind, "mcpc call, warm", "floor")
		t.add(fmt.Sprintf("%d %s notifications: `mcpc call` ≤ 3× the same bytes through a pipe", floodN, kind), v, ok, "%.2f×", 3)
		busy, idle := find(t.groups, "flood-"+kind, "mcpc call, warm"), find(t.groups, "flood-"+kind, "mcpc call, warm, no flood")
		if busy != nil && idle != nil {
			t.add(fmt.Sprintf("peak RSS under the %s flood ≤ idle + 20 MiB", kind), float64(slices.Max(busy.rss)-slices.Max(idle.rss))/1024, true, "+%.1f MiB", 20)
		}
	}
}

// hugeResultTargets are the memory of a 60 MiB result and of one million
// items, on each transport.
func (t *targetTable) hugeResultTargets() {
	for _, r := range []string{"mcpc call over stdio", "mcpc call over HTTP (2026-07-28)", "mcpc call over HTTP (2025-11-25)"} {
		if r := find(t.groups, "huge", r); r != nil {
			t.add("peak RSS for the 60 MiB result ≤ 3 × 60 + 20 MiB ("+strings.TrimPrefix(r.name, "mcpc call over ")+")", float64(slices.Max(r.rss))/1024, true, "%.0f MiB", 3*60+20)
		}
		if r := find(t.groups, "huge-items", r); r != nil {
			t.add("peak RSS for one million items ≤ 3 × 37 + 20 MiB ("+strings.TrimPrefix(r.name, "mcpc call over ")+")", float64(slices.Max(r.rss))/1024, true, "%.0f MiB", 3*37+20)
		}
	}
}

func median[T int64 | time.Duration](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.2f ms", v)
}

func mib(kib int64) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }

// table returns the group's rows as Markdown table lines.
func table(g *group) []string {
	lines := []string{
		"| command | median wall | × first row | median CPU | peak RSS | notes |",
		"|---|--:|--:|--:|--:|---|",
	}
	var base time.Duration
	for _, r := range g.rows {
		if r.skip == "" && len(r.wall) > 0 && base == 0 {
			base = median(r.wall)
		}
	}
	for _, r := range g.rows {
		if r.skip != "" {
			lines = append(lines, fmt.Sprintf("| %s | — | — | — | — | %s |", r.name, r.skip))
			continue
		}
		note := r.note
		if g.faults {
			note = join(note, fmt.Sprintf("%d minor page faults", median(r.faults)))
		}
		if r.cmd.server != "" {
			note = join(plural(r.requests, "HTTP request"), note)
		}
		if r.cmd.parallel > 0 {
			note = join(note, fmt.Sprintf("%d failed of %d", r.failures, r.cmd.parallel*len(r.wall)))
		} else if r.failures > 0 {
			note = join(note, fmt.Sprintf("%d runs failed", r.failures))
		}
		ratio := "—"
		if base > 0 {
			ratio = fmt.Sprintf("%.2f×", float64(median(r.wall))/float64(base))
		}
		lines = append(lines, fmt.Sprintf("| %s | %s | %s | %s | %s | %s |",
			r.name, ms(median(r.wall)), ratio, ms(median(r.cpu)), mib(slices.Max(r.rss)), note))
	}
	return lines
}

func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

func plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func printGroup(w io.Writer, g *group) {
	fmt.Fprintf(w, "\n%s, %d runs each after %d warm-up\n\n", stripTicks(g.title), g.runs, g.warmup)
	for _, l := range table(g) {
		fmt.Fprintln(w, l)
	}
}

func stripTicks(s string) string { return strings.ReplaceAll(s, "`", "") }

func (h *harness) report(w io.Writer, groups []*group, st *serveTables, inits []string, started time.Time, load0, load1 string) {
	mode := "full"
	if h.quick {
		mode = "quick (-quick: few runs, numbers only indicative)"
	}
	fmt.Fprintf(w, `# Benchmarks

Written by `+"`bench/run`"+` (%s run) on %s. Rerun it after the README's set-up;
it installs the npm peers it compares against, pinned in `+"`bench/peers/`"+`.

Each group's commands run alternately (A B C … A B C …) after a warm-up round,
so machine noise hits them alike; only ratios within one group mean anything.
"× first row" is the median wall time over the first row's. CPU time is user +
system of the command and the children it waited for (a stdio server counts);
peak RSS is the largest of those processes (wait4's maxrss; at least the
2-5 MiB of `+"`bench/spawn`"+`, the small process that forks them), except where a
note says "mcpc alone" (its own VmHWM, polled). @apify/mcpc talks to a bridge
process started by `+"`connect`"+`, which neither column counts. The huge-any and
scale groups talk to `+"`bench/listserver`"+`, a server written without the SDK that
streams its lists and results, so that their peak RSS is mcpc's.

## Machine

%s
- load average (1, 5, 15 min): %s at the start, %s at the end

`, mode, started.Format("2006-01-02 15:04 UTC"), machine(h.node), load0, load1)
	fmt.Fprintln(w, "## Targets")
	fmt.Fprintln(w)
	for _, l := range targets(groups, st) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
	for _, g := range groups {
		fmt.Fprintf(w, "## %s\n\n%d runs each after %d warm-up.\n\n", g.title, g.runs, g.warmup)
		for _, l := range table(g) {
			fmt.Fprintln(w, l)
		}
		fmt.Fprintln(w)
	}
	if st != nil {
		fmt.Fprintln(w, "## `tools/call` through `mcpc serve` over connections kept open (bench/serveload)")
		fmt.Fprintln(w)
		for _, l := range st.lines() {
			fmt.Fprintln(w, l)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "## Package initialisation in `mcpc --version`")
	fmt.Fprintln(w)
	for _, l := range inits {
		fmt.Fprintln(w, l)
	}
}

// initOwner sorts an initialised package into who put it in the binary.
func initOwner(pkg string) string {
	switch {
	case strings.HasPrefix(pkg, "github.com/mcpc-dev/mcpc"):
		return "mcpc's own packages"
	case strings.HasPrefix(pkg, "github.com/modelcontextprotocol/go-sdk"),
		strings.HasPrefix(pkg, "github.com/google/jsonschema-go"),
		strings.HasPrefix(pkg, "github.com/segmentio/"),
		strings.HasPrefix(pkg, "github.com/yosida95/"),
		strings.HasPrefix(pkg, "golang.org/x/oauth2"),
		pkg == "encoding/gob": // imported by the SDK's mcp package alone
		return "the MCP SDK and what only it imports (encoding/gob, jsonschema-go, segmentio, oauth2)"
	case strings.HasPrefix(pkg, "github.com/urfave/"), strings.HasPrefix(pkg, "github.com/tidwall/"),
		strings.HasPrefix(pkg, "golang.org/x/term"), strings.HasPrefix(pkg, "github.com/gofrs/"):
		return "command-line and query libraries (urfave/cli, gjson, x/term)"
	case strings.HasPrefix(pkg, "golang.org/x/sys"), strings.HasPrefix(pkg, "golang.org/x/sync"),
		strings.HasPrefix(pkg, "golang.org/x/time"), strings.HasPrefix(pkg, "vendor/"),
		!strings.Contains(strings.SplitN(pkg, "/", 2)[0], "."):
		return "Go runtime and standard library (net/http, crypto/tls, … shared by all)"
	}
	return "other libraries"
}

// initTrace runs `mcpc --version` n times with GODEBUG=inittrace=1 and
// returns a Markdown table of the mean init time per owner, and the
// costliest packages.
func (h *harness) initTrace(n int) []string {
	type sum struct {
		ms            float64
		bytes, allocs int64
	}
	byPkg := map[string]*sum{}
	for range n {
		cmd := exec.Command(h.path("mcpc"), "--version")
		cmd.Env = []string{"HOME=" + h.tmp, "GODEBUG=inittrace=1"}
		out, err := cmd.CombinedOutput()
		check(err)
		for _, l := range strings.Split(string(out), "\n") {
			// init PKG @T ms, C ms clock, B bytes, A allocs
			f := strings.Fields(l)
			if len(f) < 11 || f[0] != "init" {
				continue
			}
			ms, _ := strconv.ParseFloat(f[4], 64)
			b, _ := strconv.ParseInt(f[7], 10, 64)
			a, _ := strconv.ParseInt(f[9], 10, 64)
			s := byPkg[f[1]]
			if s == nil {
				s = &sum{}
				byPkg[f[1]] = s
			}
			s.ms, s.bytes, s.allocs = s.ms+ms, s.bytes+b, s.allocs+a
		}
	}
	byOwner := map[string]*sum{}
	var total sum
	for pkg, s := range byPkg {
		o := byOwner[initOwner(pkg)]
		if o == nil {
			o = &sum{}
			byOwner[initOwner(pkg)] = o
		}
		o.ms, o.bytes, o.allocs = o.ms+s.ms, o.bytes+s.bytes, o.allocs+s.allocs
		total.ms += s.ms
	}
	lines := []string{
		fmt.Sprintf("`GODEBUG=inittrace=1`, mean of %d runs; total %.2f ms of package init before `main`.", n, total.ms/float64(n)),
		"",
		"| packages | init time | allocations | bytes |",
		"|---|--:|--:|--:|",
	}
	owners := slices.SortedFunc(maps.Keys(byOwner), func(a, b string) int { return cmp.Compare(byOwner[b].ms, byOwner[a].ms) })
	for _, o := range owners {
		s := byOwner[o]
		name := o
		if o == "other libraries" {
			var pkgs []string
			for p := range byPkg {
				if initOwner(p) == o {
					pkgs = append(pkgs, "`"+p+"`")
				}
			}
			slices.Sort(pkgs)
			name += ": " + strings.Join(pkgs, ", ")
		}
		lines = append(lines, fmt.Sprintf("| %s | %.3f ms | %d | %d |", name, s.ms/float64(n), s.allocs/int64(n), s.bytes/int64(n)))
	}
	pkgs := slices.SortedFunc(maps.Keys(byPkg), func(a, b string) int { return cmp.Compare(byPkg[b].ms, byPkg[a].ms) })
	var top []string
	for _, p := range pkgs[:min(6, len(pkgs))] {
		top = append(top, fmt.Sprintf("`%s` %.3f ms", p, byPkg[p].ms/float64(n)))
	}
	return append(lines, "", "Costliest packages: "+strings.Join(top, ", ")+".")
}

func machine(nodeDir string) string {
	var b strings.Builder
	cpu := "unknown"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(l, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	fmt.Fprintf(&b, "- CPU: %s, %d cores\n", cpu, runtime.NumCPU())
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		if v, ok := statusField(data, "MemTotal:"); ok {
			fmt.Fprintf(&b, "- memory: %.1f GiB\n", float64(v)/(1<<20))
		}
	}
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		fmt.Fprintf(&b, "- kernel: %s %s\n", cstr(u.Sysname[:]), cstr(u.Release[:]))
	}
	fmt.Fprintf(&b, "- Go: %s (binaries built with CGO_ENABLED=0)\n", runtime.Version())
	node := "node"
	if nodeDir != "" {
		node = filepath.Join(nodeDir, "node")
	}
	if out, err := exec.Command(node, "--version").Output(); err == nil {
		fmt.Fprintf(&b, "- Node.js (peers): %s\n", strings.TrimSpace(string(out)))
	}
	if out, err := exec.Command("curl", "--version").Output(); err == nil {
		fmt.Fprintf(&b, "- curl: %s", strings.SplitN(string(out), "\n", 2)[0])
	}
	return strings.TrimRight(b.String(), "\n")
}

func cstr(b []int8) string {
	var s []byte
	for _, c := range b {
		if c == 0 {
			break
		}
		s = append(s, byte(c))
	}
	return string(s)
}

func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return oneLine(s)
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

func check(err error) {
	if err != nil {
		die(err)
	}
}

// cleanups stop the servers and sessions the harness started and remove
// its files, newest first, on a normal end and on die alike.
var cleanups []func()

func atExit(f func()) { cleanups = append(cleanups, f) }

func runExit() {
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	cleanups = nil
}

func die(err error) {
	fmt.Fprintln(os.Stderr, "harness: error:", err)
	runExit()
	os.Exit(1)
}
