package units

import (
	"strings"
	"time"
)

// DurationText writes a default duration as help states it: "5m" for Go's
// "5m0s". time.ParseDuration reads it back.
func DurationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
