// Command callvsraw measures one `mcpc call` against the in-repo stdio test
// server next to the floor for the same work: starting the same server and
// doing a raw JSON-RPC exchange (initialize, initialized, tools/call) by hand.
// Runs alternate between the two so machine noise hits both alike; it prints
// a table of wall times and peak memory and the ratio of the medians.
//
//	go run ./bench/callvsraw [-n 40]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 40, "runs of each")
	flag.Parse()
	dir, err := os.MkdirTemp("", "mcpc-bench-")
	check(err)
	defer os.RemoveAll(dir)
	build := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "github.com/mcpc-dev/mcpc", "github.com/mcpc-dev/mcpc/internal/testserver/cmd/mcpc-testserver")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as released
	build.Stderr = os.Stderr
	check(build.Run())
	mcpc, server := filepath.Join(dir, "mcpc"), filepath.Join(dir, "mcpc-testserver")
	home := filepath.Join(dir, "home")
	check(os.MkdirAll(home, 0o755))

	var mcpcWall, rawWall []time.Duration
	var mcpcRSS, rawRSS []int64
	for i := 0; i < *n+2; i++ {
		w1, r1 := runMcpc(mcpc, server, home)
		w2, r2 := runRaw(server)
		if i < 2 { // warm-up: page cache, first exec
			continue
		}
		mcpcWall, mcpcRSS = append(mcpcWall, w1), append(mcpcRSS, r1)
		rawWall, rawRSS = append(rawWall, w2), append(rawRSS, r2)
	}
	fmt.Printf("%d runs each, alternating; peak RSS is the client process (mcpc) or the server (raw)\n\n", *n)
	fmt.Printf("| %-28s | %9s | %9s | %9s | %13s |\n", "what", "min", "median", "p90", "peak RSS")
	fmt.Printf("|%s|%s|%s|%s|%s|\n", strings.Repeat("-", 30), strings.Repeat("-", 11), strings.Repeat("-", 11), strings.Repeat("-", 11), strings.Repeat("-", 15))
	row("mcpc call (stdio, auto era)", mcpcWall, mcpcRSS)
	row("raw JSON-RPC exchange", rawWall, rawRSS)
	fmt.Printf("\nmedian wall ratio mcpc/raw: %.2f\n", float64(pct(mcpcWall, 50))/float64(pct(rawWall, 50)))
}

func row(name string, wall []time.Duration, rss []int64) {
	fmt.Printf("| %-28s | %9s | %9s | %9s | %10.1f MiB |\n", name, ms(pct(wall, 0)), ms(pct(wall, 50)), ms(pct(wall, 90)), float64(slices.Max(rss))/1024)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// runMcpc times one invocation and reports mcpc's own peak RSS in KiB.
func runMcpc(mcpc, server, home string) (time.Duration, int64) {
	cmd := exec.Command(mcpc, "call", "--stdio", server, "echo", "text=hello")
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	start := time.Now()
	check(cmd.Run())
	wall := time.Since(start)
	if !strings.Contains(out.String(), `"text": "hello"`) {
		panic("unexpected mcpc output: " + out.String())
	}
	return wall, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
}

// runRaw starts the server and speaks the 2025-11-25 handshake and one call
// by hand: the least any client must do. Peak RSS is the server's.
func runRaw(server string) (time.Duration, int64) {
	start := time.Now()
	cmd := exec.Command(server)
	in, err := cmd.StdinPipe()
	check(err)
	outPipe, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	r := bufio.NewReader(outPipe)
	send := func(s string) { _, err := io.WriteString(in, s+"\n"); check(err) }
	recv := func() string { line, err := r.ReadString('\n'); check(err); return line }
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	recv()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	if resp := recv(); !strings.Contains(resp, `"hello"`) {
		panic("unexpected response: " + resp)
	}
	in.Close()
	check(cmd.Wait())
	return time.Since(start), cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "callvsraw:", err)
		os.Exit(1)
	}
}
