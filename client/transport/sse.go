package transport

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Event is one event of an event stream (text/event-stream).
type Event struct {
	Data  []byte // the data lines, joined by \n; nil when it had none
	other []byte // its other lines (id, event, retry, comments), as read, each ending in \n
	tail  []byte // at the stream's end: a last line without its line break
}

// EventReader is THE event-stream parser: the tap the SDK reads through
// (sseTap) and mcpc's own requests (ReadAnswer) both read events
// with it. One event's data is bounded by limit, so a server cannot make
// mcpc hold an endless line.
type EventReader struct {
	r     io.Reader
	limit int // bytes of data in one event
	rbuf  []byte
	buf   []byte   // read and not yet parsed
	line  blockBuf // the line being read
	ev    Event    // the event being read
	err   error    // the reader's error, once it returned one
}

// NewEventReader reads the events of r; one event holds at most limit
// bytes of data.
func NewEventReader(r io.Reader, limit int) *EventReader {
	return &EventReader{r: r, limit: limit}
}

// Next returns the next complete event. At the end of the stream (or a
// read error) it returns that error with what was read of an unfinished
// event, which the SDK may see as it came (sseTap) and mcpc drops (SSE
// discards an event cut short). A line over the limit is ErrTooLarge.
func (e *EventReader) Next() (Event, error) {
	for {
		for len(e.buf) > 0 {
			i := bytes.IndexByte(e.buf, '\n')
			chunk := e.buf
			if i >= 0 {
				chunk = e.buf[:i]
			}
			if e.line.n+len(chunk)+len(e.ev.Data) > e.limit+len("data: ") {
				return Event{}, ErrTooLarge
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
				e.ev = Event{}
				return ev, nil
			case bytes.HasPrefix(line, []byte("data:")):
				d := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
				if e.ev.Data == nil {
					e.ev.Data = d
				} else {
					e.ev.Data = append(append(e.ev.Data, '\n'), d...)
				}
			default:
				e.ev.other = append(append(e.ev.other, line...), '\n')
			}
		}
		if e.err != nil {
			ev := e.ev
			ev.tail = e.line.bytes()
			e.ev, e.line = Event{}, blockBuf{}
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
// and hand the SDK a stub in its place (Wire.Frame).
type sseTap struct {
	rc     io.ReadCloser
	tap    *Tap
	events *EventReader
	out    []byte // ready for the SDK
	err    error
}

func newSSETap(rc io.ReadCloser, tap *Tap, limit int) *sseTap {
	return &sseTap{rc: rc, tap: tap, events: NewEventReader(rc, limit)}
}

func (s *sseTap) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		// The server's requests wait while too many of its earlier ones
		// are unanswered.
		if err := s.tap.waitRoom(nil); err != nil {
			s.err = err
			return 0, err
		}
		ev, err := s.events.Next()
		if err == nil {
			err = s.dispatch(ev)
		}
		switch {
		case err == ErrTooLarge || err == ErrTooDeep:
			// The event is dropped and the stream ends: the session
			// explains why (client's limitFailure).
			s.tap.OverLimit(err)
			s.err = err
			return 0, err
		case err != nil:
			// An event cut short passes as it came: the SDK decides.
			s.out = append(s.out, ev.other...)
			s.out = appendData(s.out, ev.Data)
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
func (s *sseTap) dispatch(ev Event) error {
	data := ev.Data
	if s.tap.framed(len(data)) && json.Valid(data) {
		data = s.tap.frame(data)
	}
	if len(data) > 0 {
		if m, err := jsonrpc.DecodeMessage(data); err == nil {
			s.tap.incoming(m)
		} else if tooDeep(data) {
			return ErrTooDeep
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
