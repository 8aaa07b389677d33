package client

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// fakeEvents is an EventSource whose answers a test sets, and a
// WatchSource that never ends.
type fakeEvents struct {
	list  string
	polls []string // answered in turn; the last again
	asked []string // the cursors polled from ("" for null)
}

func (f *fakeEvents) OffersEvents() bool { return true }
func (f *fakeEvents) ListEvents(context.Context) (json.RawMessage, error) {
	return json.RawMessage(f.list), nil
}
func (f *fakeEvents) PollEvents(_ context.Context, _ string, cursor *string, _ int) (json.RawMessage, error) {
	c := ""
	if cursor != nil {
		c = *cursor
	}
	f.asked = append(f.asked, c)
	i := min(len(f.asked)-1, len(f.polls)-1)
	return json.RawMessage(f.polls[i]), nil
}
func (f *fakeEvents) ListRaw(context.Context, string) (json.RawMessage, error)      { return nil, nil }
func (f *fakeEvents) ReadResource(context.Context, string) (json.RawMessage, error) { return nil, nil }
func (f *fakeEvents) Subscribe(context.Context, string) error                       { return nil }
func (f *fakeEvents) Unsubscribe(context.Context, string) error                     { return nil }
func (f *fakeEvents) Gone(ctx context.Context) error                                { <-ctx.Done(); return nil }

// memCursors keeps cursors in memory.
type memCursors map[string]string

func (m memCursors) Load(e string) (string, bool) { c, ok := m[e]; return c, ok }
func (m memCursors) Save(e, c string) error       { m[e] = c; return nil }

const pollList = `{"events":[{"name":"a","delivery":["poll"]},{"name":"hook","delivery":["webhook"]}]}`

func runEvents(t *testing.T, f WatchSource, o WatchOptions) ([]string, error) {
	t.Helper()
	var lines []string
	o.What = []string{"events"}
	o.Write = func(b []byte) error { lines = append(lines, string(b)); return nil }
	o.Now = func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := NewWatch(o).Run(ctx, "srv", f)
	return lines, err
}

// A poll answer that is not one, and a server whose event types offer no
// poll delivery, are errors that name the server and the type.
func TestWatchEventsRefusals(t *testing.T) {
	f := &fakeEvents{list: `{"events":[{"name":"hook","delivery":["webhook"]}]}`, polls: []string{`{}`}}
	if _, err := runEvents(t, f, WatchOptions{Drain: true}); err == nil || err.Error() != `server "srv" lists no event type that can be followed by poll` {
		t.Errorf("webhook only: %v", err)
	}
	f = &fakeEvents{list: pollList, polls: []string{`{"events":3}`}}
	_, err := runEvents(t, f, WatchOptions{Drain: true})
	if err == nil || !strings.HasPrefix(err.Error(), `the server's events/poll answer for "a" is not one: json: cannot unmarshal number`) {
		t.Errorf("bad answer: %v", err)
	}
}

// The cursor after a batch is kept once its lines are written, and not
// when --count ends the watch inside the batch: the events not written
// are polled again next time, never skipped.
func TestWatchEventsCursorAfterLines(t *testing.T) {
	two := `{"events":[{"eventId":"e1","name":"a","data":{"n":1}},{"eventId":"e2","name":"a","data":{"n":2}}],"cursor":"c2","hasMore":false}`
	f := &fakeEvents{list: pollList, polls: []string{two}}
	kept := memCursors{"a": "c0"}
	lines, err := runEvents(t, f, WatchOptions{Drain: true, SinceLast: true, Cursors: kept})
	if err != nil || len(lines) != 3 || kept["a"] != "c2" || f.asked[0] != "c0" {
		t.Fatalf("drain: err %v, lines %q, kept %q, asked %q", err, lines, kept, f.asked)
	}
	if want := `{"seq":2,"time":"2026-12-01T00:00:00.000Z","kind":"event","event":"a","eventId":"e2","data":{"n":2}}`; lines[2] != want {
		t.Errorf("line = %s, want %s", lines[2], want)
	}
	f = &fakeEvents{list: pollList, polls: []string{two}}
	kept = memCursors{"a": "c0"}
	lines, err = runEvents(t, f, WatchOptions{Count: 1, SinceLast: true, Cursors: kept})
	if err != nil || len(lines) != 2 || kept["a"] != "c0" {
		t.Errorf("count 1: err %v, lines %q, kept %q", err, lines, kept)
	}
}

// The wait before a poll is the server's nextPollMs within the floor and
// ten minutes.
func TestPollWait(t *testing.T) {
	for _, c := range []struct {
		ms    int64
		floor time.Duration
		want  time.Duration
	}{{0, 0, time.Second}, {5, 100 * time.Millisecond, 100 * time.Millisecond}, {2500, time.Second, 2500 * time.Millisecond}, {1 << 40, time.Second, 10 * time.Minute}, {1 << 62, time.Second, 10 * time.Minute}, {-5, time.Second, time.Second}} {
		if got := pollWait(c.ms, c.floor); got != c.want {
			t.Errorf("pollWait(%d, %s) = %s, want %s", c.ms, c.floor, got, c.want)
		}
	}
}
