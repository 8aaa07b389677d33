//go:build !pprof

// Package profile profiles an invocation's CPU, in a build that asks for
// it (-tags pprof) and nowhere else.
package profile

// Start is a no-op: CPU profiling is compiled in only with -tags pprof
// (pprof.go), so the released binary pays nothing for it.
func Start(func(string) string) func() { return func() {} }
