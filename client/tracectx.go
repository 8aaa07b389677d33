package client

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// traceparentRE is the W3C trace-context header, version 00; compiled on
// first use, as only invocations with TRACEPARENT set need it.
var traceparentRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)
})

// maxTraceValue bounds TRACESTATE and BAGGAGE: they ride on every request.
const maxTraceValue = 8192

// TraceContext reads TRACEPARENT (with TRACESTATE and BAGGAGE) from the
// environment so a CI pipeline's trace continues into the server through
// each request's _meta (ConnectOptions.TraceMeta). Invalid values are
// dropped, each with a line to trace (nil: none); nil when TRACEPARENT is
// unset or invalid.
func TraceContext(getenv func(string) string, trace func(string)) map[string]string {
	if trace == nil {
		trace = func(string) {}
	}
	tp := getenv("TRACEPARENT")
	if tp == "" {
		return nil
	}
	if !traceparentRE().MatchString(tp) || strings.HasPrefix(tp, "ff-") ||
		strings.Contains(tp, "-00000000000000000000000000000000-") || strings.Contains(tp, "-0000000000000000-") {
		trace(fmt.Sprintf("TRACEPARENT %q is not a valid W3C traceparent; not sent", tp))
		return nil
	}
	m := map[string]string{"traceparent": tp}
	for env, key := range map[string]string{"TRACESTATE": "tracestate", "BAGGAGE": "baggage"} {
		v := getenv(env)
		if v != "" && len(v) <= maxTraceValue && !strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			m[key] = v
		} else if v != "" {
			trace(env + " is not a valid value; not sent")
		}
	}
	return m
}
