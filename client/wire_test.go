package client

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/memtest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// bigResponse is a tools/call response whose text is n bytes, with the
// raw result it carries.
func bigResponse(id, n int) (msg, result []byte) {
	result = []byte(`{"content":[{"type":"text","text":"` + strings.Repeat("x", n) + `"}]}`)
	msg = []byte(`{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"result":` + string(result) + "}")
	return msg, result
}

// pendingCall is a wire waiting for the answer to tools/call id.
func pendingCall(t *testing.T, id int64) *wire {
	t.Helper()
	w := newWire()
	jid, err := jsonrpc.MakeID(float64(id))
	if err != nil {
		t.Fatal(err)
	}
	req := &jsonrpc.Request{ID: jid, Method: "tools/call", Params: json.RawMessage(`{"name":"huge"}`)}
	if resp, err := w.outgoing(req); resp != nil || err != nil {
		t.Fatalf("outgoing = %v, %v", resp, err)
	}
	return w
}

// decodeAll decodes the messages the SDK would read from r (one a line)
// and shows them to the wire as the connection does.
func decodeAll(t *testing.T, w *wire, r io.Reader) []jsonrpc.Message {
	t.Helper()
	var msgs []jsonrpc.Message
	dec := json.NewDecoder(r)
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return msgs
		} else if err != nil {
			t.Fatal(err)
		}
		m, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			t.Fatal(err)
		}
		w.incoming(m)
		msgs = append(msgs, m)
	}
}

func checkStubbed(t *testing.T, w *wire, msgs []jsonrpc.Message, result []byte) {
	t.Helper()
	if len(msgs) != 1 {
		t.Fatalf("the SDK read %d messages, want 1", len(msgs))
	}
	if got := string(msgs[0].(*jsonrpc.Response).Result); got != bigResultStubs["tools/call"] {
		t.Errorf("the SDK decoded %.80q, want the stub", got)
	}
	rs := w.Results("tools/call")
	if len(rs) != 1 || !bytes.Equal(rs[0], result) {
		t.Errorf("the wire kept %d results, want the raw one", len(rs))
	}
}

// A large result over stdio is read once into a buffer of its own and kept
// there; the SDK reads a stub. Gathering the line costs about twice its
// size (blocks, then the line): an append-grown buffer costs five times.
func TestStdioLargeResult(t *testing.T) {
	msg, result := bigResponse(7, 20<<20)
	w := pendingCall(t, 7)
	var msgs []jsonrpc.Message
	n := memtest.Allocated(func() {
		lc := &lineChecker{r: bufio.NewReaderSize(bytes.NewReader(append(msg, '\n')), 64<<10), c: io.NopCloser(nil), limit: DefaultMaxMessage, frame: w.frame}
		msgs = decodeAll(t, w, lc)
	})
	checkStubbed(t, w, msgs, result)
	if limit := uint64(5 * len(msg) / 2); n > limit {
		t.Errorf("reading a %d-byte message allocated %d bytes, want at most %d", len(msg), n, limit)
	}
}

// The same over HTTP, as one event of an event stream and as a JSON body.
func TestSSELargeResult(t *testing.T) {
	msg, result := bigResponse(3, 20<<20)
	w := pendingCall(t, 3)
	stream := "event: message\nid: 1\ndata: " + string(msg) + "\n\n"
	var out []byte
	n := memtest.Allocated(func() {
		var err error
		out, err = io.ReadAll(newSSETap(io.NopCloser(strings.NewReader(stream)), w, DefaultMaxMessage))
		if err != nil {
			t.Fatal(err)
		}
	})
	want := "event: message\nid: 1\ndata: " + `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}` + "\n\n"
	if string(out) != want {
		t.Errorf("the SDK read %.200q, want %q", out, want)
	}
	if rs := w.Results("tools/call"); len(rs) != 1 || !bytes.Equal(rs[0], result) {
		t.Errorf("the wire kept %d results, want the raw one", len(rs))
	}
	if limit := uint64(5 * len(msg) / 2); n > limit {
		t.Errorf("reading a %d-byte event allocated %d bytes, want at most %d", len(msg), n, limit)
	}
}

// Small messages, other methods and results that ask for input pass
// through unchanged.
func TestFramePassesOthers(t *testing.T) {
	big := strings.Repeat("x", bigResult)
	w := pendingCall(t, 1)
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"text":"` + big + `"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","text":"` + big + `"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"text":"` + big + `"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"` + big + `"}}`,
	} {
		if got := w.frame([]byte(m)); string(got) != m {
			t.Errorf("frame changed %.80q", m)
		}
	}
}
