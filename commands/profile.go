//go:build !pprof

package commands

// profile is a no-op: CPU profiling is compiled in only with -tags pprof
// (profile_pprof.go), so the released binary pays nothing for it.
func profile(func(string) string) func() { return func() {} }
