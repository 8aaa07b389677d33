package conn

import (
	"testing"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// The hint for a message over the limit suggests a size --max-message
// accepts: twice the limit, at most MaxMaxMessage, and none at the top.
func TestTooLargeHintIsAcceptable(t *testing.T) {
	for _, tc := range []struct {
		limit int64
		size  string // suggested, "" for none
		hint  string
	}{
		{1 << 20, "2MiB", "raise the limit with --max-message SIZE (e.g. --max-message 2MiB)"},
		{3 << 30, "4GiB", "raise the limit with --max-message SIZE (e.g. --max-message 4GiB)"},
		{MaxMaxMessage, "", "4GiB is the largest limit mcpc accepts (a message is held in memory whole)"},
	} {
		w := newWire()
		w.tap.OverLimit(transport.ErrTooLarge)
		s := &Conn{Entry: &config.Entry{Name: "big", Server: &config.Server{}}, Label: `server "big"`, wire: w, maxMessage: tc.limit}
		f := s.limitFailure()
		if f == nil || f.Code != fail.TooLarge || f.Hint != tc.hint {
			t.Fatalf("limit %d: got %+v, want code %v and hint %q", tc.limit, f, fail.TooLarge, tc.hint)
		}
		if tc.size != "" {
			if _, err := units.ParseSize(tc.size); err != nil {
				t.Errorf("limit %d: the suggested size is refused: %v", tc.limit, err)
			}
		}
	}
}
