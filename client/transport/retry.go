package transport

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcpc-dev/mcpc/internal/listkind"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// safeToRepeat are the requests a 429 or 503 may retry: they change
// nothing on the server. tools/call is never repeated.
var safeToRepeat = reads("server/discover", "resources/read")

// reads is the set of methods and of every list's (listkind.Kinds): a
// list is a read, and a kind added to the table is one too.
func reads(methods ...string) map[string]bool {
	set := map[string]bool{}
	for _, m := range methods {
		set[m] = true
	}
	for _, k := range listkind.Kinds {
		set[k.Method] = true
	}
	return set
}

// maxRetryAfter bounds how long mcpc waits on a Retry-After without a
// deadline of the user's.
const maxRetryAfter = 10 * time.Second

// retryAfter says whether resp (429 or 503 with Retry-After) may be retried
// once, and after how long: only a request safe to repeat, and only when
// the wait fits the invocation's deadline (or maxRetryAfter).
func retryAfter(req *http.Request, resp *http.Response, msg jsonrpc.Message) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	r, ok := msg.(*jsonrpc.Request)
	if !ok || !safeToRepeat[r.Method] {
		return 0, false
	}
	limit := maxRetryAfter
	if dl, ok := req.Context().Deadline(); ok {
		limit = min(limit, time.Until(dl))
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	var wait time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs >= 0 {
		// Compared in seconds first: an absurd value (9223372037) times
		// a second is past what a Duration holds and would wrap around
		// to a wait of nothing.
		if secs > int64(limit/time.Second) {
			return 0, false
		}
		wait = time.Duration(secs) * time.Second
	} else if at, err := http.ParseTime(v); err == nil {
		wait = max(time.Until(at), 0) // Until saturates: no wrap-around
	} else {
		return 0, false
	}
	return wait, wait < limit
}
