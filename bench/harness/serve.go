//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpc-dev/mcpc/internal/shellwords"
)

// The serve rows: mcpc serve lending the in-repo test server, next to
// the same call made to that server directly and next to the peers that
// front a server (mcporter serve, @apify/mcpc connect --proxy). The
// whole-process group is one invocation of bench/floor per run; the
// latency, load and memory tables are bench/serveload's, over
// connections kept open (a warm upstream), repeated serveRepeats times
// and reported as medians of each repeat's figure.

// serveRepeats is how many times each serveload run is repeated.
const (
	serveRepeats = 5
	serveCalls   = 2000 // calls of one latency client per repeat
	loadClients  = 100
	loadCalls    = 100
)

// served is an endpoint the serve rows reach: a URL, or a stdio command
// line, and the pid whose memory is read.
type served struct {
	url string
	pid int
}

// serveFixture is what the serve rows run against, started once.
type serveFixture struct {
	upstream26, upstream25 string // the HTTP test servers, directly
	stdioServer            string // the stdio test server's command line
	overHTTP, overHTTP25   served // mcpc serve --http fronting each HTTP server
	overStdio              served // mcpc serve --http fronting the stdio server
	mcporter, apify        served // the peers fronting the stdio server
	mcporterSkip           string
	apifySkip              string
	apifyHome, apifyCfg    string
}

// startServe starts mcpc serve ARGS --http 127.0.0.1:0 --no-auth with
// HOME home and returns where it serves, read from its note on stderr.
func (h *harness) startServe(home string, args ...string) served {
	argv := append([]string{h.path("mcpc"), "serve"}, append(args, "--http", "127.0.0.1:0", "--no-auth")...)
	cmd := h.command(cmdSpec{argv: argv, home: fixed(home)})
	errPipe, err := cmd.StderrPipe()
	check(err)
	check(cmd.Start())
	atExit(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	note := regexp.MustCompile(`serving .* at (http://\S+); `)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			if m := note.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case u := <-found:
		return served{url: u, pid: cmd.Process.Pid}
	case <-time.After(10 * time.Second):
		die(fmt.Errorf("mcpc serve %s said nowhere where it serves", strings.Join(args, " ")))
	}
	return served{}
}

// freePort is a loopback port nothing listens on now (for the peers,
// which take a port, not :0).
func freePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startServeFixture starts the HTTP test servers (their own, so that no
// other row's requests count), mcpc serve in front of each and of the
// stdio test server, and the peers in front of the stdio test server.
func (h *harness) startServeFixture() *serveFixture {
	f := &serveFixture{}
	var stop func()
	f.upstream26, stop = h.startHTTP("serve-upstream", "--stateless")
	atExit(stop)
	f.upstream25, stop = h.startHTTP("serve-upstream-legacy", "--legacy")
	atExit(stop)
	server := h.path("mcpc-testserver")
	f.stdioServer = shellwords.Quote(server) + " --ttl " + ttlMs
	home := h.newHome()
	f.overHTTP = h.startServe(home, f.upstream26)
	f.overHTTP25 = h.startServe(home, f.upstream25)
	f.overStdio = h.startServe(home, "--stdio", f.stdioServer)
	if h.peers == "" {
		f.mcporterSkip, f.apifySkip = "npm peers not installed (-peers)", "npm peers not installed (-peers)"
		return f
	}
	f.startMcporter(h, server)
	f.startApify(h, server)
	return f
}

// startMcporter runs mcporter serve --http in front of the stdio test
// server, configured keep-alive (what its serve lends).
func (f *serveFixture) startMcporter(h *harness, server string) {
	home := h.newHome()
	cfg := filepath.Join(home, "mcporter.json")
	check(os.WriteFile(cfg, []byte(`{"mcpServers":{"ts":{"command":`+strconv.Quote(server)+`,"args":["--ttl","`+ttlMs+`"],"lifecycle":"keep-alive"}}}`), 0o644))
	port := freePort()
	cmd := h.command(cmdSpec{argv: []string{h.peer("mcporter"), "--config", cfg, "serve", "--http", strconv.Itoa(port)}, home: fixed(home)})
	check(cmd.Start())
	atExit(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		h.command(cmdSpec{argv: []string{h.peer("mcporter"), "--config", cfg, "daemon", "stop"}, home: fixed(home)}).Run()
	})
	// Its per-server path keeps the tool's name (/mcp prefixes it).
	f.mcporter = served{url: fmt.Sprintf("http://127.0.0.1:%d/mcp/ts", port), pid: cmd.Process.Pid}
	if !waitListening(port) {
		f.mcporterSkip = "mcporter serve did not listen"
	}
}

// startApify connects an @apify/mcpc session to the stdio test server
// with --proxy: its bridge serves the session over HTTP.
func (f *serveFixture) startApify(h *harness, server string) {
	f.apifyHome = h.newHome()
	f.apifyCfg = filepath.Join(f.apifyHome, "servers.json")
	check(os.WriteFile(f.apifyCfg, []byte(`{"mcpServers":{"ts":{"command":`+strconv.Quote(server)+`,"args":["--ttl","`+ttlMs+`"]}}}`), 0o644))
	atExit(func() { f.closeApify(h) })
	f.connectApify(h)
}

// connectApify (re)connects the proxied session: its proxy takes one
// initialize in its life (a second is refused, the first client's session
// ended or not), so each repeat gets a new one.
func (f *serveFixture) connectApify(h *harness) {
	port := freePort()
	out, err := h.command(cmdSpec{argv: []string{h.peer("mcpc"), "connect", f.apifyCfg + ":ts", "@bench-proxy", "--proxy", "127.0.0.1:" + strconv.Itoa(port)}, home: fixed(f.apifyHome)}).CombinedOutput()
	if err != nil {
		f.apifySkip = "connect --proxy failed: " + lastLine(string(out))
		return
	}
	f.apify = served{url: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}
	if !waitListening(port) {
		f.apifySkip = "its proxy did not listen"
	}
}

func (f *serveFixture) closeApify(h *harness) {
	h.command(cmdSpec{argv: []string{h.peer("mcpc"), "close", "@bench-proxy"}, home: fixed(f.apifyHome)}).Run()
}

func waitListening(port int) bool {
	for range 500 {
		if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			c.Close()
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// serveGroups is one tools/call as a whole process: bench/floor, made
// directly to the server and through mcpc serve (HTTP and stdio).
func (h *harness) serveGroups(f *serveFixture, runs int) []*group {
	floor := h.path("floor")
	home := fixed(h.newHome())
	serveStdio := []string{floor, h.path("mcpc"), "serve", "--stdio", f.stdioServer}
	peerNote := "not a whole-process row: it takes no 2026-07-28 request; see the latency table"
	return []*group{{key: "serve-call", title: "one `tools/call` through `mcpc serve` next to the same call made directly (in-repo Go server)", runs: runs, warmup: 1, rows: []*row{
		{name: "floor: one POST to the HTTP server, directly", cmd: cmdSpec{argv: []string{floor, "-url", f.upstream26}, want: echoWant, server: f.upstream26}},
		{name: "floor: one POST through mcpc serve --http (the HTTP server behind it)", cmd: cmdSpec{argv: []string{floor, "-url", f.overHTTP.url}, want: echoWant, server: f.upstream26}, note: "serve started first"},
		{name: "floor: one POST through mcpc serve --http (the stdio server behind it)", cmd: cmdSpec{argv: []string{floor, "-url", f.overStdio.url}, want: echoWant}, note: "serve and its server started first"},
		{name: "floor: spawn the stdio server, server/discover, tools/call", cmd: cmdSpec{argv: append([]string{floor}, shellSplit(f.stdioServer)...), want: echoWant}},
		{name: "floor: spawn mcpc serve --stdio SERVER, server/discover, tools/call", cmd: cmdSpec{argv: serveStdio, home: home, want: echoWant}, note: "serve starts the server"},
		{name: "mcporter serve --http", skip: peerNote},
		{name: "@apify/mcpc connect --proxy", skip: peerNote},
	}}}
}

func shellSplit(s string) []string {
	argv, err := shellwords.Split(s)
	check(err)
	return argv
}

// loadResult is one serveload line.
type loadResult struct {
	Target       string  `json:"target"`
	Calls        int     `json:"calls"`
	Errors       int     `json:"errors"`
	FirstErr     string  `json:"first_error"`
	PerSec       float64 `json:"calls_per_sec"`
	P50us        float64 `json:"p50_us"`
	P99us        float64 `json:"p99_us"`
	RSSConnected int64   `json:"rss_connected_kib"`
	HWM          int64   `json:"hwm_kib"`
}

// loadRow is one line of a serve table: a target and each repeat's
// figures.
type loadRow struct {
	name, target, note, skip string
	pid                      int
	// base is the row this one is compared with: the server it fronts,
	// reached directly on that server's own transport.
	base *loadRow
	runs []loadResult
}

func (r *loadRow) med(f func(loadResult) float64) float64 {
	v := make([]float64, len(r.runs))
	for i, x := range r.runs {
		v[i] = f(x)
	}
	slices.Sort(v)
	if len(v) == 0 {
		return 0
	}
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func (r *loadRow) errors() (n, of int) {
	for _, x := range r.runs {
		n += x.Errors
		of += x.Calls + x.Errors
	}
	return n, of
}

// serveTables are the latency and load tables, measured.
type serveTables struct {
	latency, load []*loadRow
	repeats       int
}

// serveLoad measures the latency rows (one client each, taking turns
// call by call) and the load rows (loadClients × loadCalls, one target at
// a time, the targets in turn each repeat).
func (h *harness) serveLoad(f *serveFixture) *serveTables {
	t := &serveTables{repeats: serveRepeats}
	calls := serveCalls
	if h.quick {
		t.repeats, calls = 1, 300
	}
	direct26 := &loadRow{name: "HTTP server directly (2026-07-28 requests)", target: "http26=" + f.upstream26}
	direct25 := &loadRow{name: "HTTP server directly (2025-11-25 HTTP session)", target: "http25=" + f.upstream25}
	directStdio := &loadRow{name: "stdio server directly (its pipes)", target: "stdio=" + f.stdioServer}
	apifyRow := &loadRow{name: "@apify/mcpc 0.2.6 connect --proxy, stdio server behind it (2025-11-25 HTTP session)", target: "http25=" + f.apify.url, base: directStdio, skip: f.apifySkip, note: "its proxy takes one initialize in its life (connected again each repeat); 2026-07-28 refused"}
	t.latency = []*loadRow{
		direct26,
		{name: "mcpc serve --http, HTTP server behind it (2026-07-28 requests)", target: "http26=" + f.overHTTP.url, base: direct26},
		direct25,
		{name: "mcpc serve --http, HTTP server behind it (2025-11-25 HTTP session)", target: "http25=" + f.overHTTP25.url, base: direct25},
		directStdio,
		{name: "mcpc serve (stdio), stdio server behind it", target: "stdio=" + shellwords.Join([]string{h.path("mcpc"), "serve", "--stdio", f.stdioServer}), base: directStdio},
		{name: "mcpc serve --http, stdio server behind it (2026-07-28 requests)", target: "http26=" + f.overStdio.url, base: directStdio},
		{name: "mcpc serve --http, stdio server behind it (2025-11-25 HTTP session)", target: "http25=" + f.overStdio.url, base: directStdio},
		{name: "mcporter 0.12.3 serve --http, stdio server behind it (2025-11-25)", target: "http25=" + f.mcporter.url, base: directStdio, skip: f.mcporterSkip, note: "no HTTP sessions; 2026-07-28 refused"},
		apifyRow,
	}
	t.load = []*loadRow{
		{name: "HTTP server directly (2026-07-28 requests)", target: "http26=" + f.upstream26, pid: 0, note: "the server alone, for scale"},
		{name: "mcpc serve --http, stdio server behind it (2026-07-28 requests)", target: "http26=" + f.overStdio.url, pid: f.overStdio.pid},
		{name: "mcpc serve --http, stdio server behind it (2025-11-25 HTTP sessions)", target: "http25=" + f.overStdio.url, pid: f.overStdio.pid},
		{name: "mcpc serve --http, HTTP server behind it (2026-07-28 requests)", target: "http26=" + f.overHTTP.url, pid: f.overHTTP.pid},
		{name: "mcpc serve --http, HTTP server behind it (2025-11-25 HTTP sessions)", target: "http25=" + f.overHTTP.url, pid: f.overHTTP.pid},
		{name: "mcporter serve --http, stdio server behind it (2025-11-25)", target: "http25=" + f.mcporter.url, pid: f.mcporter.pid, skip: f.mcporterSkip, note: "RSS: its serve process, its daemon not counted"},
		{name: "@apify/mcpc connect --proxy", skip: "serves one client in its life: a second initialize is refused (400 \"Server already initialized\"), the first one's session ended or not"},
	}
	var live []string
	var liveRows []*loadRow
	for _, r := range t.latency {
		if r.skip == "" {
			live, liveRows = append(live, r.target), append(liveRows, r)
		}
	}
	fmt.Fprintf(os.Stderr, "harness: serve latency and load (%d repeats)\n", t.repeats)
	for i := range t.repeats {
		if i > 0 && apifyRow.skip == "" {
			f.closeApify(h)
			f.connectApify(h)
			live[slices.Index(liveRows, apifyRow)] = "http25=" + f.apify.url
		}
		args := append([]string{"-latency", strconv.Itoa(calls)}, live...)
		for i, res := range h.serveload(args...) {
			liveRows[i].runs = append(liveRows[i].runs, res)
		}
		for _, r := range t.load {
			if r.skip != "" {
				continue
			}
			args := []string{"-clients", strconv.Itoa(loadClients), "-calls", strconv.Itoa(loadCalls)}
			if r.pid > 0 {
				args = append(args, "-pid", strconv.Itoa(r.pid))
			}
			r.runs = append(r.runs, h.serveload(append(args, r.target)...)...)
		}
	}
	return t
}

func (h *harness) serveload(args ...string) []loadResult {
	cmd := exec.Command(h.path("serveload"), args...)
	cmd.Env = []string{"HOME=" + h.newHome(), "PATH=" + h.basePath}
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		die(fmt.Errorf("serveload %s: %v", strings.Join(args, " "), err))
	}
	var rs []loadResult
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var r loadResult
		if err := dec.Decode(&r); err != nil {
			if !errors.Is(err, io.EOF) {
				die(fmt.Errorf("serveload: %v", err))
			}
			return rs
		}
		rs = append(rs, r)
	}
}

func us(v float64) string {
	if v >= 10000 {
		return fmt.Sprintf("%.0f ms", v/1000)
	}
	return fmt.Sprintf("%.2f ms", v/1000)
}

// lines are the serve tables in Markdown.
func (t *serveTables) lines() []string {
	if t == nil {
		return nil
	}
	out := []string{
		fmt.Sprintf("### one client, %d calls each, the rows taking turns call by call", serveCalls),
		"",
		fmt.Sprintf("Each figure is the median of %d repeats' figure. The added latency is the row's over the server it fronts reached directly, on that server's own transport (for a stdio server behind `--http`, HTTP's own cost is in it).", t.repeats),
		"",
		"| path of the call | median | p99 | added at the median | p99 × directly | notes |",
		"|---|--:|--:|--:|--:|---|",
	}
	for _, r := range t.latency {
		if r.skip != "" {
			out = append(out, fmt.Sprintf("| %s | — | — | — | — | %s |", r.name, r.skip))
			continue
		}
		b := r.base
		added, ratio := "—", "—"
		if b != nil && len(b.runs) > 0 {
			added = fmt.Sprintf("%+.2f ms", (r.med(p50)-b.med(p50))/1000)
			ratio = fmt.Sprintf("%.2f×", r.med(p99)/b.med(p99))
		}
		note := r.note
		if n, of := r.errors(); n > 0 {
			note = join(note, fmt.Sprintf("%d errors of %d", n, of))
		}
		out = append(out, fmt.Sprintf("| %s | %s | %s | %s | %s | %s |", r.name, us(r.med(p50)), us(r.med(p99)), added, ratio, note))
	}
	out = append(out, "",
		fmt.Sprintf("### %d clients at once × %d calls each, one target at a time", loadClients, loadCalls),
		"",
		"Each client has its own connection (its own HTTP session for 2025-11-25), opened by a first call not counted; the load generator runs on the same 2 cores. RSS is the serving process's alone (its upstream not counted): VmRSS with every client connected, and its peak (VmHWM) at the end. A row with the HTTP server behind it cannot pass that server's own rate (the first row), which shares the cores.",
		"",
		"| target | calls/s | errors | p50 | p99 | RSS, clients connected | peak RSS | notes |",
		"|---|--:|--:|--:|--:|--:|--:|---|",
	)
	for _, r := range t.load {
		if r.skip != "" {
			out = append(out, fmt.Sprintf("| %s | — | — | — | — | — | — | %s |", r.name, r.skip))
			continue
		}
		n, of := r.errors()
		rss, hwm := "—", "—"
		if r.pid > 0 {
			rss, hwm = mib(int64(r.med(func(x loadResult) float64 { return float64(x.RSSConnected) }))), mib(int64(r.med(func(x loadResult) float64 { return float64(x.HWM) })))
		}
		note := r.note
		for _, x := range r.runs {
			if x.FirstErr != "" {
				note = join(note, "first error: "+oneLine(x.FirstErr))
				break
			}
		}
		out = append(out, fmt.Sprintf("| %s | %.0f | %d of %d | %s | %s | %s | %s | %s |", r.name, r.med(perSec), n, of, us(r.med(p50)), us(r.med(p99)), rss, hwm, note))
	}
	return out
}

func p50(x loadResult) float64    { return x.P50us }
func p99(x loadResult) float64    { return x.P99us }
func perSec(x loadResult) float64 { return x.PerSec }

// targets are the serve targets of issue 34 against this run.
func (t *serveTables) targets(tt *targetTable) {
	if t == nil {
		return
	}
	for _, r := range t.latency {
		b := r.base
		if !strings.HasPrefix(r.name, "mcpc serve") || r.skip != "" || len(r.runs) == 0 || b == nil || len(b.runs) == 0 {
			continue
		}
		tt.add("`mcpc serve` adds ≤ 1 ms at the median: "+r.name, (r.med(p50)-b.med(p50))/1000, true, "%+.2f ms", 1)
		tt.add("`mcpc serve` adds ≤ 10 % at p99: "+r.name, 100*(r.med(p99)/b.med(p99)-1), true, "%+.0f %%", 10)
	}
	for _, r := range t.load {
		if !strings.HasPrefix(r.name, "mcpc serve") || r.skip != "" || len(r.runs) == 0 {
			continue
		}
		n, of := r.errors()
		tt.add(fmt.Sprintf("%d clients × %d calls, no error: %s", loadClients, loadCalls, r.name), float64(n), true, "%.0f errors of "+strconv.Itoa(of), 0)
		tt.lines = append(tt.lines, fmt.Sprintf("| ≥ 2,000 calls/s: %s | %.0f | %s |", r.name, r.med(perSec), map[bool]string{true: "yes", false: "no"}[r.med(perSec) >= 2000]))
		rss := r.med(func(x loadResult) float64 { return float64(x.RSSConnected) }) / 1024
		tt.add(fmt.Sprintf("serve's RSS with %d clients connected ≤ 30 MiB: %s", loadClients, r.name), rss, true, "%.1f MiB", 30)
	}
}
