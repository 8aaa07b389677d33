package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// The list is streamed: serving 200,000 tools allocates a small fraction
// of the 27 MB answer (the server's RSS must stay out of mcpc's peak).
func TestListStreamed(t *testing.T) {
	s := &server{era: "2025", n: 200000, kind: "tools"}
	var out countWriter
	n := memtest.Allocated(func() {
		if err := s.stdio(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n"), &out); err != nil {
			t.Fatal(err)
		}
	})
	if out.n < 25<<20 {
		t.Fatalf("the list is %d bytes, want about 27 MB", out.n)
	}
	if n > uint64(out.n/4) {
		t.Errorf("serving a %d-byte list allocated %d bytes", out.n, n)
	}
}

type countWriter struct{ n int }

func (w *countWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

func TestPagesAndCalls(t *testing.T) {
	s := &server{era: "2026", n: 5, kind: "tools", page: 2, ttl: 10}
	var out bytes.Buffer
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"4"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"x"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"tool-4"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"tool-5"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"tool-04"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":6,"method":"initialize"}`,
	}, "\n")
	if err := s.stdio(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":10,"cacheScope":"public","tools":[{"name":"tool-4","description":"Tool 4 of a long list.","inputSchema":{"type":"object","properties":{"query":{"type":"string"}}}},` + small["tools"] + `]}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"invalid cursor"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"tool-4"}]}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"unknown tool: tool-5"}}`,
		`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"unknown tool: tool-04"}}`,
		`{"jsonrpc":"2.0","id":6,"error":{"code":-32022,"message":"unsupported protocol version","data":{"supported":["2026-07-28"]}}}`,
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("got %d answers:\n%s", len(got), out.String())
	}
	for i := range want {
		if got[i] != want[i] || !json.Valid([]byte(got[i])) {
			t.Errorf("answer %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}

// Hostile input: a request line without end is cut at maxRequest (the
// reader holds no more), and a line that is not JSON ends the server.
func TestRequestsBounded(t *testing.T) {
	s := &server{era: "2025", n: 1, kind: "tools"}
	endless := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`), neverEnding('x'))
	var err error
	n := memtest.Allocated(func() { err = s.stdio(endless, io.Discard) })
	if err == nil || !strings.Contains(err.Error(), "token too long") {
		t.Errorf("an endless line: %v", err)
	}
	if n > 4*maxRequest {
		t.Errorf("an endless line allocated %d bytes", n)
	}
	if err := s.stdio(strings.NewReader("not json\n"), io.Discard); err == nil || !strings.Contains(err.Error(), "a request that is not JSON") {
		t.Errorf("not JSON: %v", err)
	}
	deep := strings.Repeat("[", 100000) + "\n"
	if err := s.stdio(strings.NewReader(deep), io.Discard); err == nil {
		t.Error("a deeply nested line was taken for a request")
	}
}

type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}
