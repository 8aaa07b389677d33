//go:build pprof

package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// With -tags pprof, MCPC_CPUPROFILE=FILE writes a CPU profile of the whole
// invocation (for the throughput work: go build -tags pprof, then
// go tool pprof mcpc FILE).
var profile *os.File

func init() {
	path := os.Getenv("MCPC_CPUPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpc: cannot profile:", err)
		return
	}
	profile = f
}

func stopProfile() {
	if profile != nil {
		pprof.StopCPUProfile()
		profile.Close()
	}
}
