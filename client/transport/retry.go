package transport

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcpc-dev/mcpc/internal/listkind"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
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

// CodeRateLimited is SEP-3304's RateLimited JSON-RPC error, which the
// connection honours by its data.retryAfterMs (client/conn/ratelimit.go).
const CodeRateLimited = -32023

// rateLimited says a 429's body is a -32023: its retryAfterMs, not the
// Retry-After header, says when to come back (SEP-3304 RL-9), and the
// connection retries it, once: the transport does not. The body is read
// within the error-body bound and put back.
func rateLimited(resp *http.Response) bool {
	if resp.StatusCode != http.StatusTooManyRequests {
		return false
	}
	data := readEvidence(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return rawmsg.View(data).Get("error.code").Int() == CodeRateLimited
}

// maxRetryAfter bounds how long mcpc waits on a Retry-After without a
// deadline of the user's.
const maxRetryAfter = 10 * time.Second

// retryAfter says whether resp (429 or 503 with Retry-After) may be retried
// once, and after how long: only a request safe to repeat, and only when
// the wait fits the invocation's deadline (or maxRetryAfter).
func retryAfter(req *http.Request, resp *http.Response, msg jsonrpc.Message) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable || rateLimited(resp) {
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
