//go:build linux

// It reads /proc for the resident memory of the server it loads.

// Command serveload is the load generator of bench/run's serve rows: a
// small MCP client speaking JSON-RPC by hand to each target, over
// Streamable HTTP (2026-07-28 stateless requests, or a 2025-11-25 HTTP
// session per client) or over a stdio server's pipes, and timing each
// tools/call from the request written to the answer read.
//
//	serveload -latency N [-warmup W] TARGET...
//	serveload -clients C -calls N [-pid PID] TARGET
//
// A TARGET is KIND=WHERE: http26=URL, http25=URL, or stdio=COMMAND
// (split as a shell splits words). With -latency each target gets one
// client and N calls, the targets taking turns call by call (A B C A B C
// …) so that the machine's noise hits them alike. With -clients, C
// clients each make N calls at once, each on its own connection (its own
// HTTP session for http25), and -pid's resident memory (VmRSS) is read
// when every client has connected and made its first call, and again at
// the end. Each target's figures are one JSON line on stdout.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpc-dev/mcpc/internal/shellwords"
)

const (
	meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"serveload","version":"0"}}`
	callParams = `"name":"echo","arguments":{"text":"hello"}`
	want       = `hello`
)

// result is one target's figures, a JSON line.
type result struct {
	Target   string  `json:"target"`
	Clients  int     `json:"clients"`
	Calls    int     `json:"calls"`
	Errors   int     `json:"errors"`
	FirstErr string  `json:"first_error,omitempty"`
	Seconds  float64 `json:"seconds"`
	PerSec   float64 `json:"calls_per_sec"`
	P50us    float64 `json:"p50_us"`
	P99us    float64 `json:"p99_us"`
	// RSS of -pid (KiB): with every client connected, at the end, and
	// the peak (VmHWM) at the end.
	RSSConnected int64 `json:"rss_connected_kib,omitempty"`
	RSSEnd       int64 `json:"rss_end_kib,omitempty"`
	HWM          int64 `json:"hwm_kib,omitempty"`
}

// client makes calls on one connection of one target.
type client interface {
	call() error
	close()
}

func main() {
	latency := flag.Int("latency", 0, "one client per target, this many calls each, the targets taking turns")
	warmup := flag.Int("warmup", 200, "calls of each client not counted, first")
	clients := flag.Int("clients", 0, "clients at once on the one target")
	calls := flag.Int("calls", 100, "calls of each client (with -clients)")
	pid := flag.Int("pid", 0, "with -clients: the process whose resident memory is read")
	flag.Parse()
	if flag.NArg() == 0 || (*latency > 0) == (*clients > 0) {
		fmt.Fprintln(os.Stderr, "usage: serveload -latency N TARGET... | -clients C -calls N [-pid PID] TARGET")
		os.Exit(2)
	}
	enc := json.NewEncoder(os.Stdout)
	if *latency > 0 {
		for _, r := range latencies(flag.Args(), *latency, *warmup) {
			check(enc.Encode(r))
		}
		return
	}
	if flag.NArg() != 1 {
		check(errors.New("-clients loads one target"))
	}
	check(enc.Encode(load(flag.Arg(0), *clients, *calls, *pid)))
}

// latencies times n calls of one client per target, in turns.
func latencies(targets []string, n, warmup int) []result {
	cs := make([]client, len(targets))
	for i, t := range targets {
		c, err := dial(t)
		check(err)
		defer c.close()
		cs[i] = c
	}
	times := make([][]time.Duration, len(targets))
	errs := make([]int, len(targets))
	for i := range warmup + n {
		for j, c := range cs {
			t0 := time.Now()
			err := c.call()
			d := time.Since(t0)
			if i < warmup {
				check(err)
				continue
			}
			if err != nil {
				errs[j]++
				continue
			}
			times[j] = append(times[j], d)
		}
	}
	out := make([]result, len(targets))
	for j, t := range targets {
		var sum time.Duration
		for _, d := range times[j] {
			sum += d
		}
		out[j] = result{Target: kindOf(t), Clients: 1, Calls: len(times[j]), Errors: errs[j], Seconds: sum.Seconds()}
		out[j].P50us, out[j].P99us = quantile(times[j], 0.5), quantile(times[j], 0.99)
		if sum > 0 {
			out[j].PerSec = float64(len(times[j])) / sum.Seconds()
		}
	}
	return out
}

// load runs c clients of n calls each at once on target.
func load(target string, c, n, pid int) result {
	cs := make([]client, c)
	for i := range cs {
		cl, err := dial(target)
		check(err)
		defer cl.close()
		cs[i] = cl
	}
	r := result{Target: kindOf(target), Clients: c}
	var (
		mu        sync.Mutex
		times     []time.Duration
		errs      atomic.Int64
		firstErr  atomic.Value
		connected sync.WaitGroup
		start     = make(chan struct{})
		done      sync.WaitGroup
	)
	// Each client's first call (not counted) opens its connection; the
	// memory is read when all have, then they all start at once.
	connected.Add(c)
	done.Add(c)
	for _, cl := range cs {
		go func() {
			defer done.Done()
			err := cl.call()
			connected.Done()
			if err != nil {
				errs.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
			}
			<-start
			mine := make([]time.Duration, 0, n)
			for range n {
				t0 := time.Now()
				if err := cl.call(); err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			times = append(times, mine...)
			mu.Unlock()
		}()
	}
	connected.Wait()
	if pid > 0 {
		r.RSSConnected, _ = status(pid, "VmRSS:")
	}
	t0 := time.Now()
	close(start)
	done.Wait()
	r.Seconds = time.Since(t0).Seconds()
	if pid > 0 {
		r.RSSEnd, _ = status(pid, "VmRSS:")
		r.HWM, _ = status(pid, "VmHWM:")
	}
	r.Calls, r.Errors = len(times), int(errs.Load())
	if s, ok := firstErr.Load().(string); ok {
		r.FirstErr = s
	}
	r.PerSec = float64(len(times)) / r.Seconds
	r.P50us, r.P99us = quantile(times, 0.5), quantile(times, 0.99)
	return r
}

func kindOf(target string) string {
	k, _, _ := strings.Cut(target, "=")
	return k
}

func dial(target string) (client, error) {
	kind, where, ok := strings.Cut(target, "=")
	if !ok {
		return nil, fmt.Errorf("target %q is not KIND=WHERE", target)
	}
	switch kind {
	case "http26", "http25":
		c := &httpClient{url: where, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2, DisableCompression: true}}}
		if kind == "http25" {
			return c, c.initialize()
		}
		return c, nil
	case "stdio":
		argv, err := shellwords.Split(where)
		if err != nil {
			return nil, err
		}
		return startStdio(argv)
	}
	return nil, fmt.Errorf("target kind %q: want http26, http25 or stdio", kind)
}

// httpClient is one client over Streamable HTTP: its own connection
// (its own Transport), and its HTTP session when it speaks 2025.
type httpClient struct {
	url, session string
	legacy       bool // speaks 2025-11-25 (initialized first)
	hc           *http.Client
	id           int
}

func (c *httpClient) initialize() error {
	_, err := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"serveload","version":"0"}}}`, "initialize", "")
	if err != nil {
		return err
	}
	// A server without HTTP sessions (mcporter serve) gives no
	// Mcp-Session-Id: each request then stands alone, in 2025-11-25.
	c.legacy = true
	_, err = c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "notifications/initialized", "")
	return err
}

func (c *httpClient) call() error {
	c.id++
	params := callParams
	if !c.legacy {
		params += "," + meta
	}
	body, err := c.post(`{"jsonrpc":"2.0","id":`+strconv.Itoa(c.id)+`,"method":"tools/call","params":{`+params+`}}`, "tools/call", "echo")
	if err != nil {
		return err
	}
	if !bytes.Contains(body, []byte(want)) || bytes.Contains(body, []byte(`"error":`)) {
		return fmt.Errorf("unexpected answer: %.200s", body)
	}
	return nil
}

func (c *httpClient) post(body, method, name string) ([]byte, error) {
	req, err := http.NewRequest("POST", c.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.legacy {
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	} else if method != "initialize" {
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("HTTP %s: %.200s", resp.Status, b)
	}
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		c.session = s
	}
	return b, nil
}

// close ends the HTTP session, as a client that is done does (a server
// serving one session at a time takes the next one then).
func (c *httpClient) close() {
	if c.session != "" {
		if req, err := http.NewRequest("DELETE", c.url, nil); err == nil {
			req.Header.Set("Mcp-Session-Id", c.session)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
			if resp, err := c.hc.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	}
	c.hc.CloseIdleConnections()
}

// stdioClient is a stdio server of its own, spoken to over its pipes
// (2026-07-28: server/discover first, as a client that does not know the
// server does).
type stdioClient struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startStdio(argv []string) (*stdioClient, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &stdioClient{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}
	_, err = c.exchange(`{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{` + meta + `}}`)
	return c, err
}

func (c *stdioClient) call() error {
	c.id++
	line, err := c.exchange(`{"jsonrpc":"2.0","id":` + strconv.Itoa(c.id) + `,"method":"tools/call","params":{` + callParams + "," + meta + `}}`)
	if err != nil {
		return err
	}
	if !bytes.Contains(line, []byte(want)) || bytes.Contains(line, []byte(`"error":`)) {
		return fmt.Errorf("unexpected answer: %.200s", line)
	}
	return nil
}

// exchange writes one request and reads lines until the one answering it
// (the first carrying an id: notifications have none).
func (c *stdioClient) exchange(req string) ([]byte, error) {
	if _, err := io.WriteString(c.in, req+"\n"); err != nil {
		return nil, err
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		if bytes.Contains(line, []byte(`"id":`)) {
			return line, nil
		}
	}
}

func (c *stdioClient) close() {
	c.in.Close()
	c.cmd.Wait()
}

// quantile is the q-quantile of ds in microseconds (nearest rank).
func quantile(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	i = min(max(i, 0), len(s)-1)
	return float64(s[i]) / float64(time.Microsecond)
}

// status is one field (in KiB) of /proc/PID/status.
func status(pid int, key string) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, key); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				v, err := strconv.ParseInt(f[0], 10, 64)
				return v, err == nil
			}
		}
	}
	return 0, false
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
}
