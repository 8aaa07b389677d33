//go:build pprof

package profile

import (
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof" // its handlers, on $MCPC_PPROF_ADDR only
	"os"
	"runtime/pprof"
)

// Start, with -tags pprof, writes a CPU profile of the invocation to
// $MCPC_CPUPROFILE, for the throughput work (go build -tags pprof, then
// go tool pprof mcpc FILE), and serves net/http/pprof on
// $MCPC_PPROF_ADDR (a loopback HOST:PORT) for as long as it runs: the
// heap and goroutines of a long-lived process (mcpc serve with its
// clients connected) are read there while it serves. The returned
// function ends the CPU profile.
func Start(getenv func(string) string) func() {
	if addr := getenv("MCPC_PPROF_ADDR"); addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpc: cannot serve pprof:", err)
		} else {
			go http.Serve(ln, nil)
		}
	}
	path := getenv("MCPC_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpc: cannot profile:", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
