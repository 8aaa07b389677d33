package client

import (
	"reflect"
	"strings"
	"testing"
)

func TestTraceContext(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, c := range []struct {
		name  string
		env   map[string]string
		want  map[string]string
		trace []string
	}{
		{"unset", nil, nil, nil},
		{"valid", map[string]string{"TRACEPARENT": tp, "TRACESTATE": "vendor=1", "BAGGAGE": "user=ada"},
			map[string]string{"traceparent": tp, "tracestate": "vendor=1", "baggage": "user=ada"}, nil},
		{"malformed", map[string]string{"TRACEPARENT": "00-zzzz-00f067aa0ba902b7-01"}, nil,
			[]string{`TRACEPARENT "00-zzzz-00f067aa0ba902b7-01" is not a valid W3C traceparent; not sent`}},
		{"version ff", map[string]string{"TRACEPARENT": "ff" + tp[2:]}, nil,
			[]string{`TRACEPARENT "ff` + tp[2:] + `" is not a valid W3C traceparent; not sent`}},
		{"zero trace id", map[string]string{"TRACEPARENT": "00-00000000000000000000000000000000-00f067aa0ba902b7-01"}, nil,
			[]string{`TRACEPARENT "00-00000000000000000000000000000000-00f067aa0ba902b7-01" is not a valid W3C traceparent; not sent`}},
		// A hostile value is quoted: no escape sequence reaches the trace.
		{"escapes", map[string]string{"TRACEPARENT": "\x1b[2J"}, nil,
			[]string{`TRACEPARENT "\x1b[2J" is not a valid W3C traceparent; not sent`}},
		{"bad state, huge baggage", map[string]string{"TRACEPARENT": tp, "TRACESTATE": "a\nb", "BAGGAGE": strings.Repeat("b", maxTraceValue+1)},
			map[string]string{"traceparent": tp}, []string{"BAGGAGE is not a valid value; not sent", "TRACESTATE is not a valid value; not sent"}},
	} {
		var lines []string
		got := TraceContext(func(k string) string { return c.env[k] }, func(l string) { lines = append(lines, l) })
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
		if len(lines) == 2 && lines[0] > lines[1] {
			lines[0], lines[1] = lines[1], lines[0] // map order
		}
		if !reflect.DeepEqual(lines, c.trace) {
			t.Errorf("%s: trace %q, want %q", c.name, lines, c.trace)
		}
	}
	// No trace function: dropped quietly.
	if got := TraceContext(func(string) string { return "bad" }, nil); got != nil {
		t.Errorf("nil trace: %v", got)
	}
}
