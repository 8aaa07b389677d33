package transport

import (
	"bufio"
	"io"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// A Bound cuts a stdio line there: a server that answers with 60 MiB
// where 64 KiB were due is read no further than the bound, in bounded
// memory, and the limit is reported broken. Once lifted, the full limit
// holds again.
func TestStdioBoundCutsTheLine(t *testing.T) {
	huge := `{"jsonrpc":"2.0","id":1,"result":{"contents":[{"text":"` + strings.Repeat("x", 60<<20) + `"}]}}` + "\n"
	tap := NewTap(nil)
	var broke error
	r := &countingReader{r: strings.NewReader(huge + `{"jsonrpc":"2.0","id":2,"result":{}}` + "\n")}
	lc := &lineChecker{r: bufio.NewReaderSize(r, 64<<10), c: io.NopCloser(nil), limit: DefaultMaxMessage + 1,
		bound: tap.limit, over: func(err error) { broke = err }}
	restore := tap.Bound(100 << 10)
	var err error
	n := memtest.Allocated(func() { _, err = lc.next() })
	if err != ErrTooLarge || broke != ErrTooLarge {
		t.Fatalf("next = %v (told %v), want ErrTooLarge", err, broke)
	}
	if n > 1<<20 || r.n > 256<<10 {
		t.Errorf("allocated %d bytes and read %d of the line, want under 1 MiB and 256 KiB", n, r.n)
	}
	restore()
	if tap.limit(DefaultMaxMessage) != DefaultMaxMessage {
		t.Errorf("the bound outlived its restore")
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
