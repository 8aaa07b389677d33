package config

import (
	"encoding/json"
	"fmt"
	"time"
)

// DefaultKeepAlive is how long a session started for "keepAlive": true
// waits without a request: session start's --idle default.
const DefaultKeepAlive = 15 * time.Minute

// MinKeepAlive is the floor of a session's idle bound ("keepAlive", and
// session start's --idle): a bound shorter than one call (the holder's
// start, an invocation's handshake) would end the session between a
// start and its first request, or between an invocation's handshake and
// its call, and so fail every call with the session's end.
const MinKeepAlive = time.Second

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
		if d, err := time.ParseDuration(s); err == nil && d >= MinKeepAlive {
			*k = KeepAlive(d)
			return nil
		} else if err == nil && d > 0 {
			return fmt.Errorf(`keepAlive %s is below the floor of %s: a session must outlast a call (use true, false, or a duration like "10m")`, b, MinKeepAlive)
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
