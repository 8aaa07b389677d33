package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

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

// A holder's tap (Unreadable) reads a line over the limit to its end, in
// bounded memory, and drops it, telling its id (written last, as the
// TypeScript SDK does); a line nested too deep likewise. The next line
// is read as ever, and no limit is recorded as broken: the session goes
// on. A line that goes on past UnframedSpan times the limit is read no
// further: the connection ends there (ErrUnframed).
func TestUnreadableLineDropped(t *testing.T) {
	huge := `{"jsonrpc":"2.0","result":{"text":"` + strings.Repeat("x", 3<<20) + `"},"id":"h-1"}` + "\n"
	deep := `{"jsonrpc":"2.0","id":"h-2","result":{"d":` + strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1) + "}}\n"
	next := `{"jsonrpc":"2.0","id":"h-3","result":{}}` + "\n"
	tap := NewTap(quietWire{})
	type drop struct {
		err error
		id  string
	}
	var drops []drop
	tap.Unreadable(func(err error, id json.RawMessage) { drops = append(drops, drop{err, string(id)}) })
	lc := &lineChecker{r: bufio.NewReaderSize(strings.NewReader(huge+deep+next), 64<<10), c: io.NopCloser(nil), limit: 1<<20 + 1,
		bound: tap.limit, over: tap.OverLimit, drops: tap.dropping, dropped: tap.dropped}
	conn := &stdioConn{t: &stdioTransport{in: lc}}
	var msg jsonrpc.Message
	var err error
	n := memtest.Allocated(func() { msg, err = conn.Read(context.Background()) })
	if r, ok := msg.(*jsonrpc.Response); err != nil || !ok || r.ID.Raw() != "h-3" {
		t.Fatalf("Read = %v, %v; want the message after the dropped ones", msg, err)
	}
	want := []drop{{ErrTooLarge, `"h-1"`}, {ErrTooDeep, `"h-2"`}}
	if fmt.Sprint(drops) != fmt.Sprint(want) {
		t.Errorf("dropped %v, want %v", drops, want)
	}
	if n > 3<<20 {
		t.Errorf("allocated %d bytes to drop a 3 MiB line over a 1 MiB limit, want under 3 MiB", n)
	}
	if tap.LimitErr() != nil {
		t.Errorf("LimitErr = %v, want none: the connection goes on", tap.LimitErr())
	}
}

func TestUnframedLineEnds(t *testing.T) {
	endless := `{"jsonrpc":"2.0","id":"h-1","result":{"text":"` + strings.Repeat("x", 20<<20)
	tap := NewTap(quietWire{})
	tap.Unreadable(func(error, json.RawMessage) { t.Error("an unframed line was dropped as if it ended") })
	r := &countingReader{r: strings.NewReader(endless)}
	lc := &lineChecker{r: bufio.NewReaderSize(r, 64<<10), c: io.NopCloser(nil), limit: 1<<20 + 1,
		bound: tap.limit, over: tap.OverLimit, drops: tap.dropping, dropped: tap.dropped}
	if _, err := lc.next(); err != ErrUnframed || tap.LimitErr() != ErrUnframed {
		t.Fatalf("next = %v (LimitErr %v), want ErrUnframed", err, tap.LimitErr())
	}
	if r.n > (UnframedSpan+2)<<20 {
		t.Errorf("read %d bytes of a line without end over a 1 MiB limit, want at most %d MiB", r.n, UnframedSpan+2)
	}
}
