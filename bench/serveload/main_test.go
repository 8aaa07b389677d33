//go:build linux

package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeMCP answers tools/call echo as a server of either era does, and
// checks what each request carries: a 2025 client's Mcp-Session-Id after
// its initialize, a 2026-07-28 request's headers. Every fifth call of
// "bad" sessions is answered with a JSON-RPC error.
type fakeMCP struct {
	mu               sync.Mutex
	sessions, ended  int
	calls, malformed int
}

func (f *fakeMCP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	sid := r.Header.Get("Mcp-Session-Id")
	switch {
	case r.Method == http.MethodDelete:
		f.ended++
		return
	case strings.Contains(string(body), `"initialize"`):
		f.sessions++
		w.Header().Set("Mcp-Session-Id", "s"+string(rune('a'+f.sessions)))
		io.WriteString(w, `{"jsonrpc":"2.0","id":0,"result":{}}`)
		return
	case strings.Contains(string(body), `notifications/initialized`):
		w.WriteHeader(http.StatusAccepted)
		return
	}
	f.calls++
	modern := sid == "" && r.Header.Get("MCP-Protocol-Version") == "2026-07-28" && r.Header.Get("Mcp-Method") == "tools/call" &&
		r.Header.Get("Mcp-Name") == "echo" && strings.Contains(string(body), `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`)
	legacy := sid != "" && r.Header.Get("MCP-Protocol-Version") == "2025-11-25" && !strings.Contains(string(body), "_meta")
	if !modern && !legacy {
		f.malformed++
	}
	if strings.Contains(r.URL.Path, "bad") && f.calls%5 == 0 {
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"hello, no"}}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hello\"}]}}\n\n")
}

func TestLoadBothEras(t *testing.T) {
	f := &fakeMCP{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	r := load("http25="+srv.URL+"/mcp", 10, 7, os.Getpid())
	if r.Calls != 70 || r.Errors != 0 || r.Clients != 10 || r.PerSec <= 0 || r.P50us <= 0 || r.P99us < r.P50us {
		t.Errorf("2025 load: %+v", r)
	}
	if r.RSSConnected <= 0 || r.HWM < r.RSSEnd {
		t.Errorf("the memory of -pid was not read: %+v", r)
	}
	if f.sessions != 10 || f.ended != 10 {
		t.Errorf("%d HTTP sessions opened and %d ended, want one each per client", f.sessions, f.ended)
	}
	r = load("http26="+srv.URL+"/mcp", 4, 5, 0)
	if r.Calls != 20 || r.Errors != 0 || r.RSSConnected != 0 {
		t.Errorf("2026-07-28 load: %+v", r)
	}
	if f.malformed != 0 {
		t.Errorf("%d requests lacked their era's headers or envelope", f.malformed)
	}
	if f.sessions != 10 {
		t.Errorf("a 2026-07-28 client initialized")
	}
}

// An answer that is an error is counted, not timed, and the first is
// kept to be shown.
func TestLoadCountsErrors(t *testing.T) {
	srv := httptest.NewServer(&fakeMCP{})
	defer srv.Close()
	r := load("http26="+srv.URL+"/bad", 2, 10, 0)
	// The server's calls 1 and 2 are the clients' first (not timed), 3 to
	// 22 the timed ones, of which 5, 10, 15 and 20 fail.
	if r.Calls != 16 || r.Errors != 4 || !strings.Contains(r.FirstErr, "hello, no") {
		t.Errorf("errors not counted: %+v", r)
	}
}

func TestLatenciesTakeTurns(t *testing.T) {
	srv := httptest.NewServer(&fakeMCP{})
	defer srv.Close()
	rs := latencies([]string{"http26=" + srv.URL + "/a", "http25=" + srv.URL + "/b"}, 30, 3)
	if len(rs) != 2 || rs[0].Target != "http26" || rs[1].Target != "http25" {
		t.Fatalf("results: %+v", rs)
	}
	for _, r := range rs {
		if r.Calls != 30 || r.Errors != 0 || r.P50us <= 0 {
			t.Errorf("%+v", r)
		}
	}
}

func TestQuantile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Microsecond)
	}
	if q := quantile(ds, 0.5); q != 50 {
		t.Errorf("median of 1..100 µs = %v", q)
	}
	if q := quantile(ds, 0.99); q != 99 {
		t.Errorf("p99 of 1..100 µs = %v", q)
	}
	if q := quantile(nil, 0.5); q != 0 {
		t.Errorf("quantile of nothing = %v", q)
	}
}

func TestDialRefusesUnknownKinds(t *testing.T) {
	for _, target := range []string{"http://x", "grpc=x"} {
		if _, err := dial(target); err == nil {
			t.Errorf("dial(%q) took it", target)
		}
	}
}
