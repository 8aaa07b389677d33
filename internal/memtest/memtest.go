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

// List is {"key":[item(0),…,item(n-1)]}: a large list for a test to read.
func List(key string, n int, item func(i int) string) []byte {
	b := []byte(`{"` + key + `":[`)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, item(i)...)
	}
	return append(b, "]}"...)
}
