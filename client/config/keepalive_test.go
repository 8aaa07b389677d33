package config

import (
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

func TestKeepAliveValues(t *testing.T) {
	for in, want := range map[string]time.Duration{
		`"keepAlive": "10m"`:  10 * time.Minute,
		`"keepAlive": true`:   DefaultKeepAlive,
		`"keepAlive": false`:  0,
		`"keepAlive": null`:   0,
		`"keepAlive": "1.5s"`: 1500 * time.Millisecond,
		`"keepAlive": "1s"`:   MinKeepAlive,
		`"env": {}`:           0,
	} {
		f := ParseFile("f.json", SourceUser, []byte(`{"mcpServers": {"a": {"command": "x", `+in+`}}}`))
		if f.Err != nil || f.Servers["a"].Unusable() != nil {
			t.Fatalf("%s: %v %v", in, f.Err, f.Servers["a"].Unusable())
		}
		if got := time.Duration(f.Servers["a"].KeepAlive); got != want {
			t.Errorf("%s = %v, want %v", in, got, want)
		}
	}
}

// A bad value is a located config error naming the key (exit 3), like
// every other key's.
func TestKeepAliveRefused(t *testing.T) {
	for in, want := range map[string]string{
		`"keepAlive": "soon"`:  `f.json:1:52: server "a": field "keepAlive": invalid keepAlive "soon" (use true, false, or a duration like "10m")`,
		`"keepAlive": "0s"`:    `f.json:1:52: server "a": field "keepAlive": invalid keepAlive "0s" (use true, false, or a duration like "10m")`,
		`"keepAlive": "-1m"`:   `f.json:1:52: server "a": field "keepAlive": invalid keepAlive "-1m" (use true, false, or a duration like "10m")`,
		`"keepAlive": "1ms"`:   `f.json:1:52: server "a": field "keepAlive": keepAlive "1ms" is below the floor of 1s: a session must outlast a call (use true, false, or a duration like "10m")`,
		`"keepAlive": "999ms"`: `f.json:1:52: server "a": field "keepAlive": keepAlive "999ms" is below the floor of 1s: a session must outlast a call (use true, false, or a duration like "10m")`,
		`"keepAlive": 600`:     `f.json:1:52: server "a": field "keepAlive": invalid keepAlive 600 (use true, false, or a duration like "10m")`,
		`"keepAlive": {}`:      `f.json:1:52: server "a": field "keepAlive": invalid keepAlive {} (use true, false, or a duration like "10m")`,
	} {
		f := ParseFile("f.json", SourceUser, []byte(`{"mcpServers": {"a": {"command": "x", `+in+`}}}`))
		if fe := fail.As(f.Err); fe == nil || fe.Code != fail.Config || fe.Msg != want {
			t.Errorf("%s: error %v, want %q", in, f.Err, want)
		}
	}
	// A session holds an HTTP server too: keepAlive is its entry's.
	f := ParseFile("f.json", SourceUser, []byte(`{"mcpServers": {"h": {"url": "https://example.com/mcp",
  "keepAlive": true}}}`))
	if f.Err != nil {
		t.Fatal(f.Err)
	}
	if err := f.Servers["h"].Unusable(); err != nil || time.Duration(f.Servers["h"].KeepAlive) != DefaultKeepAlive {
		t.Errorf("keepAlive on an HTTP server: %v, %v", err, time.Duration(f.Servers["h"].KeepAlive))
	}
}
