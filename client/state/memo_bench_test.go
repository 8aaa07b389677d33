package state

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkMemoRead is what a warm invocation reads before it sends
// anything: the server's remembered era (with its server/discover result)
// and a cached tools/list of 60 tools with their schemas (about 60 KB).
func BenchmarkMemoRead(b *testing.B) {
	m := benchMemo(b)
	discover := json.RawMessage(`{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{"listChanged":true}},"ttlMs":3600000}`)
	m.SetEra("server", &EraRecord{Version: "2026-07-28", Verdict: "probe", Discover: discover})
	var tools []string
	for i := range 60 {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%d","description":%q,"inputSchema":{"type":"object","required":["q"],"properties":{"q":{"type":"string","description":"what to look for"},"limit":{"type":"integer","minimum":1,"maximum":100},"state":{"type":"string","enum":["open","closed","all"]}}}}`,
			i, strings.Repeat("Does one thing well. ", 30)))
	}
	list := json.RawMessage(`{"tools":[` + strings.Join(tools, ",") + `],"ttlMs":3600000}`)
	m.Store("server", "tools-list", 3600000, list)
	b.SetBytes(int64(len(list)))
	for b.Loop() {
		if m.Era("server") == nil {
			b.Fatal("era not remembered")
		}
		if got := m.Cached("server", "tools-list"); len(got) != len(list) {
			b.Fatalf("cached list has %d bytes, want %d", len(got), len(list))
		}
	}
}

// BenchmarkMemoWrite is what a cold call writes on its way: the verdict of
// the probe and the tools/list the server marked cacheable, for a server
// met for the first time (its cache directory is new).
func BenchmarkMemoWrite(b *testing.B) {
	m := benchMemo(b)
	discover := json.RawMessage(`{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{"listChanged":true}},"ttlMs":3600000}`)
	list := json.RawMessage(`{"tools":[{"name":"echo","description":"Echoes its input.","inputSchema":{"type":"object","required":["text"],"properties":{"text":{"type":"string"}}}}],"ttlMs":3600000}`)
	m.SetEra("warm-up", &EraRecord{Version: "2026-07-28", Verdict: "probe"})
	m.Store("warm-up", "tools-list", 3600000, list) // the cache directory exists, as after any earlier use
	n := 0
	for b.Loop() {
		n++
		key := fmt.Sprintf("server-%d", n)
		m.SetEra(key, &EraRecord{Version: "2026-07-28", Verdict: "probe", Discover: discover})
		m.Store(key, "tools-list", 3600000, list)
	}
}

// benchMemo is a memo under a fresh directory.
func benchMemo(b *testing.B) *Memo {
	m, _ := testMemo(b)
	return m
}
