package transport

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A Retry-After is waited for only when it fits the invocation's bound
// (and maxRetryAfter): an absurd number of seconds, one whose product
// with a second wraps a Duration around, is "do not retry", not "now".
func TestRetryAfter(t *testing.T) {
	far := time.Now().AddDate(1000, 0, 0).UTC().Format(http.TimeFormat)
	for _, c := range []struct {
		value    string
		deadline time.Duration // 0: none
		wait     time.Duration
		ok       bool
	}{
		{"1", 0, time.Second, true},
		{"0", 0, 0, true},
		{"9", 0, 9 * time.Second, true},
		{"10", 0, 0, false},
		{"9223372037", 0, 0, false},
		{"9223372036854775807", 0, 0, false},
		{"99999999999999999999", 0, 0, false},
		{"-1", 0, 0, false},
		{"soon", 0, 0, false},
		{far, 0, 0, false},
		{"1", 800 * time.Millisecond, 0, false},
		{"9223372037", time.Hour, 0, false},
	} {
		ctx := context.Background()
		if c.deadline > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, c.deadline)
			defer cancel()
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/mcp", nil)
		resp := &http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {c.value}}}
		msg := &jsonrpc.Request{Method: "tools/list"}
		wait, ok := retryAfter(req, resp, msg)
		if ok != c.ok || ok && wait != c.wait {
			t.Errorf("Retry-After %q (deadline %s): got %s, %v; want %s, %v", c.value, c.deadline, wait, ok, c.wait, c.ok)
		}
	}
}

// The requests a 429 or 503 may repeat are the reads: discovery, a
// resource and every list of listkind.Kinds; never a call.
func TestSafeToRepeat(t *testing.T) {
	want := []string{"prompts/list", "resources/list", "resources/read", "resources/templates/list", "server/discover", "tools/list"}
	if got := slices.Sorted(maps.Keys(safeToRepeat)); !slices.Equal(got, want) {
		t.Errorf("safe to repeat: %q, want %q", got, want)
	}
}
