package transport

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// oneByte reads one byte at a time: events split anywhere.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(1, len(p))]) }

// chunked reads at most n bytes at a time.
type chunked struct {
	r io.Reader
	n int
}

func (c chunked) Read(p []byte) (int, error) { return c.r.Read(p[:min(c.n, len(p))]) }

// show is an event as the tests compare it.
func show(ev Event) string {
	id := "-"
	if ev.hasID {
		id = fmt.Sprintf("%q", ev.id)
	}
	return fmt.Sprintf("data=%q event=%q id=%s retry=%q", ev.Data, ev.typ, id, ev.retry)
}

// The one event-stream parser: events split across reads, CRLF, LF and
// CR lines, multi-line data, the last event, id and retry of an event
// kept and comments dropped, an event cut short at the end handed back
// with the end, and the bound on one event.
func TestEventReader(t *testing.T) {
	stream := ": comment\r\nid: 1\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nevent: message\rdata: x\r\rretry: 10\nretry: x\nid: 2\nid\nevent: a\nevent: b\ndata\n\ndata: cut"
	for _, r := range []io.Reader{oneByte{strings.NewReader(stream)}, strings.NewReader(stream)} {
		er := NewEventReader(r, 100)
		var got []string
		for {
			ev, err := er.Next()
			got = append(got, show(ev))
			if err != nil {
				if err != io.EOF {
					t.Fatal(err)
				}
				break
			}
		}
		want := []string{
			`data="{\"a\":\n1}" event="" id="1" retry=""`,
			`data="x" event="message" id=- retry=""`,
			`data="" event="b" id="" retry="10"`,
			`data="cut" event="" id=- retry=""`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	er := NewEventReader(strings.NewReader("data: "+strings.Repeat("x", 101)+"\n\n"), 100)
	if _, err := er.Next(); err != ErrTooLarge {
		t.Errorf("an event over the bound: got %v, want ErrTooLarge", err)
	}
}

// endless is a stream of unit over and over, n bytes in all, made as it
// is read: what a hostile server sends, never held whole.
type endless struct {
	unit []byte
	off  int
	n    int64
}

func (e *endless) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && e.n > 0 {
		c := copy(p[k:min(len(p), k+int(min(e.n, int64(len(e.unit)-e.off))))], e.unit[e.off:])
		e.off = (e.off + c) % len(e.unit)
		k += c
		e.n -= int64(c)
	}
	return k, nil
}

// A server that never ends an event costs the reader what one event may
// hold, however much it sends: field lines replace each other, comments
// are dropped, and a line or an event past the bound is ErrTooLarge,
// read no further than the bound.
func TestEventReaderHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("one goroutine reading 32 MiB per case (38s under -race): go test runs it, the race phase (-short) need not")
	}
	const limit = 1 << 20
	const sent int64 = 32 << 20
	for _, c := range []struct {
		name, unit string
		want       string // the event handed back at the end, or "too large"
	}{
		{"fields without a blank line", "event: message\nid: 42\nretry: 1000\n: still here\n", `data=[] event="message" id="42" retry="1000"`},
		{"comments only", ": still here\n", `data=[] event="" id=- retry=""`},
		{"event lines only", "event: endpoint\n", `data=[] event="endpoint" id=- retry=""`},
		{"id lines only, CRLF", "id: 7\r\n", `data=[] event="" id="7" retry=""`},
		{"fields ended by CR alone", "event: e\rid: 8\r: c\r", `data=[] event="e" id="8" retry=""`},
		{"a mix of line ends", "event: e\r\nid: 9\r: c\nretry: 5\r", `data=[] event="e" id="9" retry="5"`},
		{"one endless line", "x", "too large"},
		{"one endless comment", ":", "too large"},
		{"data lines without a blank line", "data: 0123456789\n", "too large"},
		{"one endless line of CRs and LFs", "\r", `data=[] event="" id=- retry=""`},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := &endless{unit: []byte(c.unit), n: sent - sent%int64(len(c.unit))}
			var got string
			alloc := memtest.Allocated(func() {
				er := NewEventReader(src, limit)
				for {
					ev, err := er.Next()
					switch {
					case err == ErrTooLarge:
						got = "too large"
					case err == io.EOF:
						got = strings.Replace(show(ev), `data=""`, "data=[]", 1)
					case err != nil:
						got = err.Error()
					case ev.Data == nil && ev.size() == 0:
						continue // blank lines: events of nothing
					default:
						got = "an event: " + show(ev)
					}
					return
				}
			})
			if want := strings.Replace(c.want, "data=[]", `data=""`, 1); got != c.want && got != want {
				t.Errorf("got %s, want %s", got, c.want)
			}
			// The event's data grown by append up to the bound (a few
			// times it, all told), the read buffer and a line's block;
			// never what was sent.
			if alloc > 6*limit {
				t.Errorf("reading %d MiB allocated %d KiB, want at most %d KiB", sent>>20, alloc>>10, 6*limit>>10)
			}
			// What is held is bounded, and a data line's "data: " is not
			// held: at most twice the bound is read before the refusal.
			if read := sent - sent%int64(len(c.unit)) - src.n; c.want == "too large" && read > 2*limit+64<<10 {
				t.Errorf("read %d bytes before refusing, want at most twice the bound and a read", read)
			}
		})
	}
}

// refEvents is the event-stream parsing of the WHATWG HTML standard
// (9.2.6), written plainly over the whole input: what EventReader must
// agree with. An event is dispatched at every blank line (callers skip
// those without data); the end of the stream hands back the event being
// read, its last line (without a line break) parsed as a field.
//
// With a limit (> 0) it refuses, as "too large", a line that with what its
// event holds (data, event, id and retry) is over limit + len("data: ").
func refEvents(in []byte, limit int) []string {
	var lines [][]byte
	for len(in) > 0 {
		i := bytes.IndexAny(in, "\r\n")
		if i < 0 {
			lines = append(lines, in)
			break
		}
		lines = append(lines, in[:i])
		if in[i] == '\r' && i+1 < len(in) && in[i+1] == '\n' {
			i++
		}
		in = in[i+1:]
	}
	var out []string
	var ev Event
	for _, line := range lines {
		if limit > 0 && len(ev.Data)+len(ev.typ)+len(ev.id)+len(ev.retry)+len(line) > limit+len("data: ") {
			return append(out, "too large")
		}
		switch {
		case len(line) == 0:
			out = append(out, show(ev))
			ev = Event{}
			continue
		case line[0] == ':':
			continue
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(name) {
		case "data":
			if ev.Data == nil {
				ev.Data = append([]byte{}, value...)
			} else {
				ev.Data = append(append(ev.Data, '\n'), value...)
			}
		case "event":
			ev.typ = append([]byte{}, value...)
		case "id":
			if !bytes.Contains(value, []byte{0}) {
				ev.id, ev.hasID = append([]byte{}, value...), true
			}
		case "retry":
			if len(value) > 0 && len(bytes.Trim(value, "0123456789")) == 0 {
				ev.retry = append([]byte{}, value...)
			}
		}
	}
	return append(out, show(ev))
}

// readEvents is every event of r as EventReader reads it, then the one
// handed back with the end, or "too large".
func readEvents(r io.Reader, limit int) []string {
	var out []string
	er := NewEventReader(r, limit)
	for {
		ev, err := er.Next()
		if err == ErrTooLarge {
			return append(out, "too large")
		}
		out = append(out, show(ev))
		if err != nil {
			return out
		}
	}
}

// EventReader reads what the standard's parsing reads, however the
// stream is cut into reads, and with a small bound refuses where it does.
func FuzzEventReader(f *testing.F) {
	for _, s := range []string{
		"data: x\n\n", "event: e\r\ndata: a\r\ndata: b\r\n\r\n", ": c\rid: 1\rretry: 2\r\r",
		"data\n\ndata:\n\n", "id: a\x00b\n\n", "event: e\nid: 1\nevent: f\n", "data: cut",
		"\r\n\r\n\n\r", "retry: 1x\nretry: 12\n\n", "data:  two spaces\n\n",
	} {
		f.Add([]byte(s), uint8(1), uint8(8))
	}
	f.Fuzz(func(t *testing.T, in []byte, chunk, limit uint8) {
		for _, limit := range []int{len(in) + 1, int(limit) + 1} {
			want := refEvents(in, limit)
			got := readEvents(chunked{bytes.NewReader(in), int(chunk) + 1}, limit)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("input %q read %d at a time, bound %d:\n%s\nwant:\n%s", in, int(chunk)+1, limit, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	})
}
