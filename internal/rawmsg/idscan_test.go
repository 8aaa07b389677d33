package rawmsg

import (
	"strings"
	"testing"
)

// TestIDScanner finds the top-level id wherever it is, fed a byte at a
// time or whole, and none where there is none.
func TestIDScanner(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for _, c := range []struct{ msg, want string }{
		{`{"jsonrpc":"2.0","id":"h-7","result":{"id":"inner"}}`, `"h-7"`},
		{`{"result":{"id":"inner","deep":` + deep + `},"jsonrpc":"2.0","id" : 12}`, `12`},
		{`{"result":{"text":"a \"id\":\"x\", here"},"id":"h-1"}`, `"h-1"`},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"id":3}}`, ``},
		{`{"id":{"a":1},"result":{}}`, ``},
		{`{"id":"` + strings.Repeat("x", 300) + `","result":{}}`, ``},
		{`{"idx":"h-2","result":{}}`, ``},
		{`{"id":null,"error":{}}`, ``},
		{`{"id":"h-3"`, ``}, // cut short: the id's end is not seen
	} {
		var whole, bytewise IDScanner
		whole.Write([]byte(c.msg))
		for i := range len(c.msg) {
			bytewise.Write([]byte{c.msg[i]})
		}
		if got := string(whole.ID()); got != c.want {
			t.Errorf("%.60s: ID() = %q, want %q", c.msg, got, c.want)
		}
		if got := string(bytewise.ID()); got != c.want {
			t.Errorf("%.60s byte by byte: ID() = %q, want %q", c.msg, got, c.want)
		}
	}
}
