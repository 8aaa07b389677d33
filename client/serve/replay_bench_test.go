package serve

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// BenchmarkReadReplay reads a recording of 10,000 messages like bench/run's
// replay row: echo calls answered, one connection.
func BenchmarkReadReplay(b *testing.B) {
	var rec bytes.Buffer
	rec.WriteString(`{"mcpc-record":1}` + "\n")
	for i := range 5000 {
		fmt.Fprintf(&rec, `{"t":"2026-07-28T12:00:00Z","conn":1,"dir":"out","transport":"stdio","msg":{"jsonrpc":"2.0","id":"pad-%d","method":"tools/call","params":{"name":"echo","arguments":{"text":"pad %d"}}}}`+"\n", i, i)
		fmt.Fprintf(&rec, `{"t":"2026-07-28T12:00:00Z","conn":1,"dir":"in","transport":"stdio","msg":{"jsonrpc":"2.0","id":"pad-%d","result":{"content":[{"type":"text","text":"pad %d"}]}}}`+"\n", i, i)
	}
	data := rec.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadReplay(context.Background(), bytes.NewReader(data), "r.jsonl", 1<<20); err != nil {
			b.Fatal(err)
		}
	}
}
