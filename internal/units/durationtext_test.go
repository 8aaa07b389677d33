package units

import (
	"testing"
	"time"
)

func TestDurationText(t *testing.T) {
	for d, want := range map[time.Duration]string{
		5 * time.Minute: "5m", 90 * time.Second: "1m30s", 2 * time.Hour: "2h", 30 * time.Second: "30s",
		time.Hour + 30*time.Minute: "1h30m", 1500 * time.Millisecond: "1.5s", 0: "0s",
	} {
		got := DurationText(d)
		if got != want {
			t.Errorf("DurationText(%v) = %q, want %q", d, got, want)
		}
		if back, err := time.ParseDuration(got); err != nil || back != d {
			t.Errorf("%q reads back as %v, %v", got, back, err)
		}
	}
}
