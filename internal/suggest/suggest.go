// Package suggest answers "did you mean": the one rule by which a name,
// a key or a tool that is not there is matched to one that is.
package suggest

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Closest returns the candidate s most likely meant: one that differs
// from it only in case, else the nearest within edit distance 2, else "".
// Further than that, a guess would mislead more than it helps.
func Closest(s string, cands []string) string {
	for _, c := range cands {
		if strings.EqualFold(c, s) && c != s {
			return c
		}
	}
	best, bestD := "", 3
	// One set of buffers for every candidate: a server of 50,000 tools is
	// 50,000 distances, and a few slices each were most of a miss's memory.
	var d distance
	a := []rune(s)
	for _, c := range cands {
		// Lengths that far apart are at least that far apart.
		if n := utf8.RuneCountInString(c); n-len(a) >= bestD || len(a)-n >= bestD {
			continue
		}
		if k := d.between(a, c); k < bestD {
			best, bestD = c, k
		}
	}
	return best
}

// Hint puts a "did you mean" before hint when a candidate is close to s,
// and returns hint as it is otherwise.
func Hint(s string, cands []string, hint string) string {
	if c := Closest(s, cands); c != "" {
		return fmt.Sprintf("did you mean %q? ", c) + hint
	}
	return hint
}

// distance computes Levenshtein distances, in runes, in buffers it keeps.
type distance struct {
	b         []rune
	prev, cur []int
}

func (d *distance) between(a []rune, b string) int {
	d.b = d.b[:0]
	for _, r := range b {
		d.b = append(d.b, r)
	}
	rb := d.b
	d.prev = slices.Grow(d.prev[:0], len(rb)+1)[:len(rb)+1]
	d.cur = slices.Grow(d.cur[:0], len(rb)+1)[:len(rb)+1]
	prev, cur := d.prev, d.cur
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if a[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
