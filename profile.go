//go:build !pprof

package main

// stopProfile is a no-op: profiling is compiled in only with -tags pprof
// (profile_pprof.go), so the released binary pays nothing for it.
func stopProfile() {}
