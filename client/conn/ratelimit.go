package conn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// codeRateLimited is SEP-3304's RateLimited: the server refused the
// request before running it and says when to come back (data.retryAfterMs).
// The code is in the range the specification reserves, so a server that
// does not speak the SEP never sends it: nothing changes for one.
const codeRateLimited = transport.CodeRateLimited

// maxRateWait is the longest wait mcpc honours (SEP-3304 RL-8: clamp an
// implausible retryAfterMs). A longer one is not shortened, since a retry
// before the time the server named would only be refused again: mcpc
// reports it at once, naming the wait, for the caller to schedule.
const maxRateWait = 30 * time.Second

// maxRetryAfterMs bounds the retryAfterMs mcpc reads (about 31 years): a
// hostile number must neither overflow a Duration nor print as nonsense.
const maxRetryAfterMs = 1_000_000_000_000

// rateLimited explains a -32023 answer: the wait the server asked for,
// carried in the --json error as retryAfterMs (with limit and remaining
// when it sent them).
func (s *Conn) rateLimited(rpc *jsonrpc.Error, err error) *fail.Error {
	data := rawmsg.View(rpc.Data)
	ms, ok := rateNumber(data.Get("retryAfterMs"))
	if !ok {
		// RL-1 makes retryAfterMs a MUST: without it there is no wait to honour.
		return &fail.Error{Code: fail.RateLimited, Err: err, Hint: "try again later",
			Msg: fmt.Sprintf("%s is rate limiting requests and did not say how long to wait (JSON-RPC error -32023)", s.Label)}
	}
	f := &fail.Error{Code: fail.RateLimited, Err: err, Fields: map[string]any{"retryAfterMs": ms},
		Msg:  rateMessage(s.Label, ms, false),
		Hint: "try again after " + rateWaitText(ms)}
	for _, k := range []string{"limit", "remaining"} {
		if n, ok := rateNumber(data.Get(k)); ok {
			f.Fields[k] = n
		}
	}
	return f
}

func rateMessage(label string, ms int64, retried bool) string {
	if retried {
		return fmt.Sprintf("%s is still rate limiting requests after one retry: it asked to wait %s more (JSON-RPC error -32023)", label, rateWaitText(ms))
	}
	return fmt.Sprintf("%s is rate limiting requests: it asked to wait %s before retrying (JSON-RPC error -32023)", label, rateWaitText(ms))
}

func rateWaitText(ms int64) string { return units.DurationText(time.Duration(ms) * time.Millisecond) }

// rateNumber reads a non-negative number of SEP-3304's data, bounded;
// false when it is absent, not a number or negative.
func rateNumber(v gjson.Result) (int64, bool) {
	if v.Type != gjson.Number || v.Float() < 0 || math.IsNaN(v.Float()) {
		return 0, false
	}
	return int64(min(v.Float(), maxRetryAfterMs)), true
}

// paced runs op, and once more when the server answered it is rate
// limiting and the wait it asked for (with jitter, RL-7) is at most
// maxRateWait and ends before the invocation's deadline. A -32023 means
// the request was not run (RL-6 keeps a tool's own upstream limits in
// its result), so even a tools/call is safe to send again. Through a
// session the holder relays the server's answer as it came, and the
// invocation paces it here like any other.
func (s *Conn) paced(ctx context.Context, op func() error) error {
	err := op()
	f := fail.As(err)
	if f == nil || f.Code != fail.RateLimited {
		return err
	}
	ms, ok := f.Fields["retryAfterMs"].(int64)
	if !ok {
		return err
	}
	asked := time.Duration(ms) * time.Millisecond
	if asked > maxRateWait {
		f.Hint = fmt.Sprintf("mcpc waits at most %s for a rate limit; try again after %s", units.DurationText(maxRateWait), rateWaitText(ms))
		return err
	}
	wait := asked + rand.N(asked/10+10*time.Millisecond)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
		f.Hint = fmt.Sprintf("raise --timeout to let mcpc wait %s and retry once", rateWaitText(ms))
		return err
	}
	s.input.Note(fmt.Sprintf("%s is rate limiting requests (JSON-RPC error -32023): waiting %s as it asked, then retrying once", s.Label, rateWaitText(ms)))
	trace(s.opts, "rate limited: retrying once in %s", wait)
	if transport.WaitFor(ctx.Done(), wait) {
		return context.Cause(ctx)
	}
	err = op()
	if f := fail.As(err); f != nil && f.Code == fail.RateLimited {
		f.Hint = "try again later"
		if ms, ok := f.Fields["retryAfterMs"].(int64); ok {
			f.Msg, f.Hint = rateMessage(s.Label, ms, true), "try again after "+rateWaitText(ms)
		}
	}
	return err
}
