package transport

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// oneByte reads one byte at a time: events split anywhere.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(1, len(p))]) }

// The one event-stream parser: events split across reads, CRLF lines,
// multi-line data, fields other than data kept, an event cut short at
// the end handed back with the end, and the bound on one event.
func TestEventReader(t *testing.T) {
	stream := ": comment\r\nid: 1\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nevent: message\ndata: x\n\ndata: cut"
	er := NewEventReader(oneByte{strings.NewReader(stream)}, 100)
	var got []string
	for {
		ev, err := er.Next()
		got = append(got, fmt.Sprintf("%q|%q|%q", ev.Data, ev.other, ev.tail))
		if err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
	}
	want := []string{
		`"{\"a\":\n1}"|": comment\nid: 1\n"|""`,
		`"x"|"event: message\n"|""`,
		`""|""|"data: cut"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	er = NewEventReader(strings.NewReader("data: "+strings.Repeat("x", 101)+"\n\n"), 100)
	if _, err := er.Next(); err != ErrTooLarge {
		t.Errorf("an event over the bound: got %v, want ErrTooLarge", err)
	}
}
