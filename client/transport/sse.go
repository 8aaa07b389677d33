package transport

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/mcpc-dev/mcpc/internal/blockbuf"
)

// Event is one event of an event stream (text/event-stream), with the
// fields the WHATWG parsing rules keep: data, and the last event, id and
// retry of the event. Comments and unknown fields are dropped as read.
type Event struct {
	Data  []byte // the data lines, joined by \n; nil when it had none
	typ   []byte // its last "event" field
	id    []byte // its last "id" field, when hasID
	hasID bool
	retry []byte // its last valid "retry" field
}

// Name is the event's type ("message" when it names none).
func (e Event) Name() string {
	if len(e.typ) == 0 {
		return "message"
	}
	return string(e.typ)
}

// size is what the event holds.
func (e *Event) size() int { return len(e.Data) + len(e.typ) + len(e.id) + len(e.retry) }

// EventReader is THE event-stream parser: the tap the SDK reads through
// (sseTap), the HTTP+SSE transport's first event (OpenSSE) and mcpc's own
// requests (ReadAnswer) all read events with it. What it holds is bounded
// by limit: the line being read and the event it belongs to together, so
// a server cannot make mcpc hold an endless line, field or event (a field
// repeated replaces the one before, a comment is dropped). Lines end in
// CRLF, LF or CR.
type EventReader struct {
	r     io.Reader
	limit int // bytes of one event, with the line being read
	rbuf  []byte
	buf   []byte       // read and not yet parsed
	lf    int          // index in buf of its next '\n', -1: none, -2: not looked for
	line  blockbuf.Buf // the line being read, when it spans reads
	cr    bool         // the last line ended in CR: an LF next is part of its end
	ev    Event        // the event being read
	err   error        // the reader's error, once it returned one
}

// NewEventReader reads the events of r; one event holds at most limit
// bytes of data.
func NewEventReader(r io.Reader, limit int) *EventReader {
	return &EventReader{r: r, limit: limit, lf: -2}
}

// Next returns the next complete event (a blank line ends one, which may
// have no data: callers skip those). At the end of the stream (or a read
// error) it returns that error with what was read of an unfinished event,
// which the SDK may see as it came (sseTap) and mcpc drops (SSE discards
// an event cut short). An event over the limit is ErrTooLarge.
func (e *EventReader) Next() (Event, error) {
	for {
		for len(e.buf) > 0 {
			if e.cr {
				e.cr = false
				if e.buf[0] == '\n' {
					e.advance(1)
					continue
				}
			}
			i := e.lineEnd()
			chunk := e.buf
			if i >= 0 {
				chunk = e.buf[:i]
			}
			// "data: " is what a data line holds beyond its data.
			if e.line.Len()+len(chunk)+e.ev.size() > e.limit+len("data: ") {
				return Event{}, ErrTooLarge
			}
			if i < 0 {
				e.line.Write(chunk)
				e.buf = nil
				break
			}
			e.cr = e.buf[i] == '\r'
			e.advance(i + 1)
			if e.line.Len() == 0 {
				if len(chunk) == 0 {
					ev := e.ev
					e.ev = Event{}
					return ev, nil
				}
				e.field(chunk, false)
				continue
			}
			e.line.Write(chunk)
			if e.field(e.line.Bytes(), true) {
				e.line = blockbuf.Buf{} // its bytes are the event's data now
			} else {
				e.line.Reset()
			}
		}
		if e.err != nil {
			if e.line.Len() > 0 {
				e.field(e.line.Bytes(), false)
			}
			ev := e.ev
			e.ev, e.line = Event{}, blockbuf.Buf{}
			return ev, e.err
		}
		if e.rbuf == nil {
			e.rbuf = make([]byte, 32<<10)
		}
		n, err := e.r.Read(e.rbuf)
		e.buf, e.err, e.lf = e.rbuf[:n], err, -2
	}
}

// lineEnd is the index of the first CR or LF in buf, -1 when there is
// none. Where the next LF lies is remembered, so that a stream of lines
// ended by CR alone is not searched again and again for one.
func (e *EventReader) lineEnd() int {
	if e.lf == -2 {
		e.lf = bytes.IndexByte(e.buf, '\n')
	}
	end := e.lf
	if end < 0 {
		end = len(e.buf)
	}
	if i := bytes.IndexByte(e.buf[:end], '\r'); i >= 0 {
		return i
	}
	return e.lf
}

// advance drops the first k bytes of buf.
func (e *EventReader) advance(k int) {
	e.buf = e.buf[k:]
	if e.lf >= 0 {
		if e.lf -= k; e.lf < 0 {
			e.lf = -2
		}
	}
}

// field adds a line that is not blank to the event. owned says the line
// is the reader's to keep; field reports whether it kept it (as data).
func (e *EventReader) field(line []byte, owned bool) bool {
	if line[0] == ':' {
		return false // a comment
	}
	name, value, found := bytes.Cut(line, []byte(":"))
	if found && len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	switch string(name) {
	case "data":
		switch {
		case e.ev.Data != nil:
			e.ev.Data = append(append(e.ev.Data, '\n'), value...)
		case owned && found:
			e.ev.Data = value
			return true
		default:
			e.ev.Data = append(make([]byte, 0, len(value)), value...)
		}
	case "event":
		e.ev.typ = append(e.ev.typ[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			e.ev.id, e.ev.hasID = append(e.ev.id[:0], value...), true
		}
	case "retry":
		if len(value) > 0 && len(bytes.Trim(value, "0123456789")) == 0 {
			e.ev.retry = append(e.ev.retry[:0], value...)
		}
	}
	return false
}

// sseTap passes an event stream through to the SDK one event at a time,
// after the wire has seen its message: the wire may keep a large result
// and hand the SDK a stub in its place (Wire.Frame). Each event is
// bounded by limit, or by the tap's Bound in force as it is read: a
// stream opened before a Bound (the HTTP+SSE transport's one stream, on
// which every answer comes) is bounded by it too.
type sseTap struct {
	rc     io.ReadCloser
	tap    *Tap
	limit  int64
	events *EventReader
	name   string // how a recording names the transport
	out    []byte // ready for the SDK
	err    error
}

func newSSETap(rc io.ReadCloser, tap *Tap, limit int64) *sseTap {
	return &sseTap{rc: rc, tap: tap, limit: limit, events: NewEventReader(rc, int(limit))}
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
		s.events.limit = int(s.tap.limit(s.limit))
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
			s.out = appendFields(s.out, ev)
			s.out = appendData(s.out, ev.Data)
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
	if s.tap.rec != nil && len(data) > 0 {
		s.tap.rec.event(s.name, ev, data)
	}
	if s.tap.framed(len(data)) && json.Valid(data) {
		data = s.tap.frame(data)
	}
	if len(data) > 0 {
		if m, err := DecodeMessage(data); err == nil {
			if s.tap.divert(m) {
				return nil // routed by a session's holder: not the SDK's
			}
			s.tap.incoming(m)
		} else if tooDeep(data) {
			return ErrTooDeep
		}
	}
	s.out = appendFields(s.out, ev)
	s.out = appendData(s.out, data)
	s.out = append(s.out, '\n')
	return nil
}

func (s *sseTap) Close() error { return s.rc.Close() }

// appendFields appends the event's fields other than data as SSE lines.
func appendFields(out []byte, ev Event) []byte {
	if len(ev.typ) > 0 {
		out = append(append(append(out, "event: "...), ev.typ...), '\n')
	}
	if ev.hasID {
		out = append(append(append(out, "id: "...), ev.id...), '\n')
	}
	if len(ev.retry) > 0 {
		out = append(append(append(out, "retry: "...), ev.retry...), '\n')
	}
	return out
}

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

// readAll is io.ReadAll through a blockbuf.Buf.
func readAll(r io.Reader) ([]byte, error) {
	var b blockbuf.Buf
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		b.Write(buf[:n])
		if err == io.EOF {
			return b.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}
