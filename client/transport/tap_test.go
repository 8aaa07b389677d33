package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// stub is what stubWire hands the SDK in place of a large message.
const stub = `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`

// stubWire keeps a large message it is shown, as it came and uncopied, and
// hands the SDK a stub in its place, as client's wire does with a large
// result.
type stubWire struct {
	quietWire
	kept []byte
	seen []jsonrpc.Message
}

func (w *stubWire) Frame(data []byte) []byte {
	if len(data) <= BigMessage {
		return data
	}
	w.kept = data
	return []byte(stub)
}

func (w *stubWire) Incoming(m jsonrpc.Message) { w.seen = append(w.seen, m) }

// bigMessage is a tools/call response whose text is n bytes.
func bigMessage(n int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", n) + `"}]}}`)
}

// A large message over stdio is read once into a buffer of its own, which
// the wire may keep; the SDK reads what the wire gave back. Gathering the
// line costs about twice its size (blocks, then the line): an
// append-grown buffer costs five times.
func TestStdioLargeResult(t *testing.T) {
	msg := bigMessage(20 << 20)
	w := &stubWire{}
	tap := NewTap(w)
	var out []byte
	n := memtest.Allocated(func() {
		lc := &lineChecker{r: bufio.NewReaderSize(bytes.NewReader(append(msg, '\n')), 64<<10), c: io.NopCloser(nil), limit: DefaultMaxMessage, frame: tap.frame, framed: tap.framed}
		var err error
		if out, err = lc.next(); err != nil {
			t.Fatal(err)
		}
	})
	if string(out) != stub {
		t.Errorf("the SDK read %.200q, want the stub", out)
	}
	if !bytes.Equal(w.kept, msg) {
		t.Errorf("the wire was shown %d bytes, want the %d-byte message", len(w.kept), len(msg))
	}
	if limit := uint64(5 * len(msg) / 2); n > limit {
		t.Errorf("reading a %d-byte message allocated %d bytes, want at most %d", len(msg), n, limit)
	}
}

// The same over HTTP, as one event of an event stream; the wire sees the
// message it gave back, decoded.
func TestSSELargeResult(t *testing.T) {
	msg := bigMessage(20 << 20)
	w := &stubWire{}
	stream := "event: message\nid: 1\ndata: " + string(msg) + "\n\n"
	var out []byte
	n := memtest.Allocated(func() {
		var err error
		out, err = io.ReadAll(newSSETap(io.NopCloser(strings.NewReader(stream)), NewTap(w), DefaultMaxMessage))
		if err != nil {
			t.Fatal(err)
		}
	})
	if want := "event: message\nid: 1\ndata: " + stub + "\n\n"; string(out) != want {
		t.Errorf("the SDK read %.200q, want %q", out, want)
	}
	if !bytes.Equal(w.kept, msg) || len(w.seen) != 1 {
		t.Errorf("the wire was shown %d bytes and %d messages, want the %d-byte message and its stub", len(w.kept), len(w.seen), len(msg))
	}
	if limit := uint64(5 * len(msg) / 2); n > limit {
		t.Errorf("reading a %d-byte event allocated %d bytes, want at most %d", len(msg), n, limit)
	}
}

// A stdio line is decoded once: one message, a batch's messages, or, for
// a line that is not JSON, the server's protocol error quoting it.
func TestStdioDecode(t *testing.T) {
	lc := &lineChecker{r: bufio.NewReaderSize(strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n\n  \n"+
			`[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},{"jsonrpc":"2.0","id":2,"result":{}}]`+"\n"+
			"Starting server...\n"), 64<<10), c: io.NopCloser(nil), limit: DefaultMaxMessage}
	var got []string
	for range 2 {
		line, err := lc.next()
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := lc.decode(line)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			switch m := m.(type) {
			case *jsonrpc.Request:
				got = append(got, m.Method)
			case *jsonrpc.Response:
				got = append(got, fmt.Sprint(m.ID.Raw()))
			}
		}
	}
	if want := []string{"1", "notifications/progress", "2"}; !slices.Equal(got, want) {
		t.Errorf("decoded %q, want %q", got, want)
	}
	line, err := lc.next()
	if err != nil {
		t.Fatal(err)
	}
	_, err = lc.decode(line)
	var pe *ProtocolError
	if !errors.As(err, &pe) || pe.Line != "Starting server..." || lc.protocolError() != pe {
		t.Errorf("decode of a line that is not JSON: %v, want the protocol error quoting it", err)
	}
}

// A decoded message owns its bytes: next hands decode the reader's buffer
// uncopied, and the next lines overwrite it.
func TestStdioDecodeOwnsBytes(t *testing.T) {
	lc := &lineChecker{r: bufio.NewReaderSize(strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"result":{"a":"first"}}`+"\n"+
			`[{"jsonrpc":"2.0","id":2,"result":{"b":"two"}}]`+"\n"+
			`{"jsonrpc":"2.0","id":3,"result":{"c":"third"}}`+"\n"), 64), c: io.NopCloser(nil), limit: DefaultMaxMessage}
	var got []string
	var results []*jsonrpc.Response
	for range 3 {
		line, err := lc.next()
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := lc.decode(line)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, msgs[0].(*jsonrpc.Response))
	}
	for _, r := range results {
		got = append(got, string(r.Result))
	}
	if want := []string{`{"a":"first"}`, `{"b":"two"}`, `{"c":"third"}`}; !slices.Equal(got, want) {
		t.Errorf("results %q, want %q", got, want)
	}
}
