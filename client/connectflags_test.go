package client

import (
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

func TestConnectFlags(t *testing.T) {
	for _, tc := range []struct {
		f    ConnectFlags
		idle time.Duration
		max  int64
		err  string
	}{
		{ConnectFlags{}, transport.DefaultIdleTimeout, 0, ""},
		{ConnectFlags{TimeoutSet: true, Timeout: time.Minute}, 0, 0, ""},
		{ConnectFlags{TimeoutSet: true, IdleSet: true, IdleTimeout: time.Second}, time.Second, 0, ""},
		{ConnectFlags{MaxMessage: "1KiB"}, transport.DefaultIdleTimeout, 1024, ""},
		{ConnectFlags{IdleSet: true, IdleTimeout: -time.Second}, 0, 0, "timeouts cannot be negative"},
		{ConnectFlags{ProbeTimeout: -1}, 0, 0, "timeouts cannot be negative"},
		{ConnectFlags{Protocol: "2024-11-05"}, 0, 0, `--protocol must be one of auto, 2026-07-28, 2025-11-25, 2025-06-18, not "2024-11-05"`},
		{ConnectFlags{Transport: "ws"}, 0, 0, `--transport must be one of auto, http, sse, not "ws"`},
	} {
		idle, max, err := tc.f.Check()
		if tc.err != "" {
			if e := fail.As(err); e == nil || e.Code != fail.Usage || e.Msg != tc.err {
				t.Errorf("%+v: %v, want %q", tc.f, err, tc.err)
			}
			continue
		}
		if err != nil || idle != tc.idle || max != tc.max {
			t.Errorf("%+v: %v, %d, %v; want %v, %d", tc.f, idle, max, err, tc.idle, tc.max)
		}
	}
	if _, _, err := (ConnectFlags{MaxMessage: "lots"}).Check(); fail.CodeOf(err) != fail.Usage {
		t.Errorf("a size that is none: %v", err)
	}
}
