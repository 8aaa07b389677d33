package config

import (
	"encoding/json"
	"fmt"
	"time"
)

// DefaultKeepAlive is how long a session started for "keepAlive": true
// waits without a request: session start's --idle default.
const DefaultKeepAlive = 15 * time.Minute

// KeepAlive is a server's "keepAlive": how long the session its first use
// starts (mcpc session) waits for the next request; 0 is off. It is
// written true (DefaultKeepAlive), false (off) or a duration ("10m"). A
// number is refused: other hosts' durations are milliseconds, mcpc's
// own seconds, and a session's lifetime should not hang on a guess.
type KeepAlive time.Duration

func (k *KeepAlive) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null", "false":
		*k = 0
		return nil
	case "true":
		*k = KeepAlive(DefaultKeepAlive)
		return nil
	}
	// A zero duration would read as "until stopped" to one reader and as
	// "off" to another: false says off.
	var s string
	if json.Unmarshal(b, &s) == nil {
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			*k = KeepAlive(d)
			return nil
		}
	}
	return fmt.Errorf(`invalid keepAlive %s (use true, false, or a duration like "10m")`, b)
}

func (k KeepAlive) MarshalJSON() ([]byte, error) {
	if k == 0 {
		return []byte("false"), nil
	}
	return json.Marshal(time.Duration(k).String())
}
