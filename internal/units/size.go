// Package units reads and writes the sizes and durations of config files
// and flags. It is a leaf: the config model and the client both use it.
package units

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxSize is the largest size ParseSize accepts: what it bounds (a message
// from a server) is held in memory whole.
const MaxSize = 4 << 30

// Size is a byte count in config: a number of bytes, or a string such as
// "128MiB".
type Size int64

func (z *Size) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		s = strings.Trim(s, `"`)
	}
	n, err := ParseSize(s)
	if err != nil {
		return err
	}
	*z = Size(n)
	return nil
}

func (z Size) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(SizeText(int64(z)))), nil }

// ParseSize reads a byte count: digits, optionally followed by KiB, MiB or
// GiB.
func ParseSize(s string) (int64, error) {
	num, mult := s, int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = v, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 || n > MaxSize/mult {
		return 0, fmt.Errorf("invalid size %q (use bytes or a size like \"128MiB\", at most 4GiB)", s)
	}
	return n * mult, nil
}

// SizeText writes n the way ParseSize reads it, in the largest whole unit.
func SizeText(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
