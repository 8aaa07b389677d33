package client

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// sseEvent is one event of an event stream (text/event-stream).
type sseEvent struct {
	data  []byte // the data lines, joined by \n; nil when it had none
	other []byte // its other lines (id, event, retry, comments), as read, each ending in \n
	tail  []byte // at the stream's end: a last line without its line break
}

// eventReader is THE event-stream parser: the tap the SDK reads through
// (sseTap) and mcpc's own requests (readStream) both read events with it.
// One event's data is bounded by limit, so a server cannot make mcpc hold
// an endless line.
type eventReader struct {
	r     io.Reader
	limit int // bytes of data in one event
	rbuf  []byte
	buf   []byte   // read and not yet parsed
	line  blockBuf // the line being read
	ev    sseEvent // the event being read
	err   error    // the reader's error, once it returned one
}

func newEventReader(r io.Reader, limit int) *eventReader {
	return &eventReader{r: r, limit: limit}
}

// next returns the next complete event. At the end of the stream (or a
// read error) it returns that error with what was read of an unfinished
// event, which the SDK may see as it came (sseTap) and mcpc drops (SSE
// discards an event cut short). A line over the limit is errTooLarge.
func (e *eventReader) next() (sseEvent, error) {
	for {
		for len(e.buf) > 0 {
			i := bytes.IndexByte(e.buf, '\n')
			chunk := e.buf
			if i >= 0 {
				chunk = e.buf[:i]
			}
			if e.line.n+len(chunk)+len(e.ev.data) > e.limit+len("data: ") {
				return sseEvent{}, errTooLarge
			}
			e.line.write(chunk)
			if i < 0 {
				e.buf = nil
				break
			}
			e.buf = e.buf[i+1:]
			line := bytes.TrimSuffix(e.line.bytes(), []byte("\r"))
			e.line = blockBuf{}
			switch {
			case len(line) == 0:
				ev := e.ev
				e.ev = sseEvent{}
				return ev, nil
			case bytes.HasPrefix(line, []byte("data:")):
				d := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
				if e.ev.data == nil {
					e.ev.data = d
				} else {
					e.ev.data = append(append(e.ev.data, '\n'), d...)
				}
			default:
				e.ev.other = append(append(e.ev.other, line...), '\n')
			}
		}
		if e.err != nil {
			ev := e.ev
			ev.tail = e.line.bytes()
			e.ev, e.line = sseEvent{}, blockBuf{}
			return ev, e.err
		}
		if e.rbuf == nil {
			e.rbuf = make([]byte, 32<<10)
		}
		n, err := e.r.Read(e.rbuf)
		e.buf, e.err = e.rbuf[:n], err
	}
}

// sseTap passes an event stream through to the SDK one event at a time,
// after the wire has seen its message: the wire may keep a large result
// and hand the SDK a stub in its place (wire.frame).
type sseTap struct {
	rc     io.ReadCloser
	w      *wire
	events *eventReader
	out    []byte // ready for the SDK
	err    error
}

func newSSETap(rc io.ReadCloser, w *wire, limit int) *sseTap {
	return &sseTap{rc: rc, w: w, events: newEventReader(rc, limit)}
}

func (s *sseTap) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		// The server's requests wait while too many of its earlier ones
		// are unanswered.
		if err := s.w.waitRoom(nil); err != nil {
			s.err = err
			return 0, err
		}
		ev, err := s.events.next()
		if err == nil {
			err = s.dispatch(ev)
		}
		switch {
		case err == errTooLarge || err == errTooDeep:
			// The event is dropped and the stream ends: the session
			// explains why (limitFailure).
			s.w.overLimit(err)
			s.err = err
			return 0, err
		case err != nil:
			// An event cut short passes as it came: the SDK decides.
			s.out = append(s.out, ev.other...)
			s.out = appendData(s.out, ev.data)
			s.out = append(s.out, ev.tail...)
			s.err = err
		}
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

// dispatch shows the wire the event's message and queues the event for
// the SDK, with the data the wire gave back.
func (s *sseTap) dispatch(ev sseEvent) error {
	data := ev.data
	if len(data) > bigResult && json.Valid(data) {
		data = s.w.frame(data)
	}
	if len(data) > 0 {
		if m, err := jsonrpc.DecodeMessage(data); err == nil {
			s.w.incoming(m)
		} else if tooDeep(data) {
			return errTooDeep
		}
	}
	s.out = append(s.out, ev.other...)
	s.out = appendData(s.out, data)
	s.out = append(s.out, '\n')
	return nil
}

func (s *sseTap) Close() error { return s.rc.Close() }

// appendData appends data as SSE data lines.
func appendData(out, data []byte) []byte {
	if data == nil {
		return out
	}
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		out = append(append(append(out, "data: "...), data[:i]...), '\n')
		data = data[i+1:]
	}
	return append(append(append(out, "data: "...), data...), '\n')
}

// blockBuf gathers bytes in blocks and joins them once: a buffer grown by
// append would allocate several times a large message.
type blockBuf struct {
	blocks [][]byte
	cur    []byte
	n      int
}

func (b *blockBuf) write(p []byte) {
	for len(p) > 0 {
		if len(b.cur) == cap(b.cur) {
			if b.cur != nil {
				b.blocks = append(b.blocks, b.cur)
			}
			b.cur = make([]byte, 0, min(max(4<<10, b.n), 1<<20))
		}
		k := min(len(p), cap(b.cur)-len(b.cur))
		b.cur = append(b.cur, p[:k]...)
		p = p[k:]
		b.n += k
	}
}

// bytes returns everything written, in a buffer of its exact size when it
// took more than one block.
func (b *blockBuf) bytes() []byte {
	if len(b.blocks) == 0 {
		return b.cur
	}
	out := make([]byte, 0, b.n)
	for _, blk := range b.blocks {
		out = append(out, blk...)
	}
	return append(out, b.cur...)
}

// readAll is io.ReadAll through a blockBuf.
func readAll(r io.Reader) ([]byte, error) {
	var b blockBuf
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		b.write(buf[:n])
		if err == io.EOF {
			return b.bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}
