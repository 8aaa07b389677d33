// Package memtest measures allocations for tests that bound them.
package memtest

import "runtime"

// Allocated returns the bytes f allocates, after a collection so earlier
// garbage does not count.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
