//go:build pprof

package profile

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// Start, with -tags pprof, writes a CPU profile of the invocation to
// $MCPC_CPUPROFILE, for the throughput work (go build -tags pprof, then
// go tool pprof mcpc FILE). The returned function ends it.
func Start(getenv func(string) string) func() {
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
