// Package suggest answers "did you mean": the one rule by which a name,
// a key or a tool that is not there is matched to one that is.
package suggest

import (
	"fmt"
	"strings"
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
	for _, c := range cands {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
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

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}
