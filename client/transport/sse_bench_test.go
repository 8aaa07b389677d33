package transport

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// BenchmarkEventReader reads a large result (one 16 MiB data line) and a
// stream of small messages (progress notifications with ids).
func BenchmarkEventReader(b *testing.B) {
	big := "data: " + `{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("x", 16<<20) + `"}}` + "\n\n"
	var small strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&small, "id: %d\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":%d}}\n\n", i, i)
	}
	for _, c := range []struct{ name, stream string }{{"large", big}, {"small", small.String()}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.stream)))
			for range b.N {
				er := NewEventReader(bytes.NewReader([]byte(c.stream)), 64<<20)
				for {
					if _, err := er.Next(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
