package client

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// fakeStreams is a fakeEvents whose event types push: each StreamEvents
// plays the next script (frames, then silence until cancelled, or an
// end at once when the script is nil), recording the cursor sent.
type fakeStreams struct {
	fakeEvents
	mu      sync.Mutex
	scripts [][]string // "method params" per frame
	sent    []string   // the cursors each stream was opened from ("null" for none)
	end     error      // what a nil script's stream ends with
	closeAt bool       // end each scripted stream after its frames, not silent
}

func (f *fakeStreams) CanStream() bool { return true }
func (f *fakeStreams) StreamEvents(ctx context.Context, _ string, cursor *string, frame func(string, json.RawMessage)) error {
	f.mu.Lock()
	c := "null"
	if cursor != nil {
		c = *cursor
	}
	f.sent = append(f.sent, c)
	i := min(len(f.sent)-1, len(f.scripts)-1)
	script := f.scripts[i]
	f.mu.Unlock()
	if script == nil {
		return f.end
	}
	for _, s := range script {
		method, params, _ := strings.Cut(s, " ")
		frame("notifications/events/"+method, json.RawMessage(params))
		time.Sleep(20 * time.Millisecond)
	}
	if f.closeAt {
		return nil
	}
	<-ctx.Done()
	return context.Cause(ctx)
}

func (f *fakeStreams) cursors() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.sent...)
}

const pushList = `{"events":[{"name":"a","delivery":["push"]},{"name":"n","delivery":["push"]}]}`

// A stream that ends before it is confirmed fails the watch, naming it.
func TestWatchPushEndsUnconfirmed(t *testing.T) {
	f := &fakeStreams{fakeEvents: fakeEvents{list: pushList}, scripts: [][]string{nil}}
	_, err := runEvents(t, &f.fakeEvents, WatchOptions{})
	if err == nil {
		t.Fatal("the watch of a fake without streams ran")
	}
	_, err = runEvents(t, f, WatchOptions{Events: []string{"a"}})
	if err == nil || err.Error() != `server "srv" ended the event stream of "a" before confirming it` {
		t.Fatalf("err = %v", err)
	}
}

// A stream silent after its heartbeats is reconnected from the cursor
// the last one carried, and an event sent again is written once.
func TestWatchPushSilentReconnects(t *testing.T) {
	first := []string{`active {"cursor":"0"}`, `event {"eventId":"e1","name":"a","data":{"n":1},"cursor":"1"}`,
		`heartbeat {"cursor":"1"}`, `heartbeat {"cursor":"2"}`, `heartbeat {"cursor":"2"}`}
	again := []string{`active {"cursor":"2"}`, `event {"eventId":"e1","name":"a","data":{"n":1},"cursor":"2"}`,
		`event {"eventId":"e2","name":"a","data":{"n":2},"cursor":"3"}`}
	f := &fakeStreams{fakeEvents: fakeEvents{list: pushList}, scripts: [][]string{first, again}}
	var notes []string
	var mu sync.Mutex
	cur := memCursors{}
	lines, err := runEvents(t, f, WatchOptions{Events: []string{"a"}, Count: 2, SinceLast: true, Cursors: cur,
		Note: func(s string) { mu.Lock(); notes = append(notes, s); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.cursors(); strings.Join(got, ",") != "null,2" {
		t.Errorf("streams opened from %q, want null then the last heartbeat's 2", got)
	}
	want := []string{
		`{"seq":0,"time":"2026-12-01T00:00:00.000Z","kind":"ready","server":"srv","watching":["events"]}`,
		`{"seq":1,"time":"2026-12-01T00:00:00.000Z","kind":"event","event":"a","eventId":"e1","data":{"n":1}}`,
		`{"seq":2,"time":"2026-12-01T00:00:00.000Z","kind":"event","event":"a","eventId":"e2","data":{"n":2}}`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if cur["a"] != "3" {
		t.Errorf("kept cursor %q, want the last event's 3", cur["a"])
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 1 || notes[0] != `the event stream of "a" went silent for 1s (twice its heartbeat): reconnecting from its cursor` {
		t.Errorf("notes = %q", notes)
	}
}

// A null cursor is never sent back: the type's new stream starts from now.
func TestWatchPushNullCursor(t *testing.T) {
	first := []string{`active {"cursor":null}`, `heartbeat {"cursor":null}`, `heartbeat {"cursor":null}`}
	again := []string{`active {"cursor":null}`, `event {"eventId":"x","name":"n","data":{},"cursor":null}`}
	f := &fakeStreams{fakeEvents: fakeEvents{list: pushList}, scripts: [][]string{first, again}}
	if _, err := runEvents(t, f, WatchOptions{Events: []string{"n"}, Count: 1}); err != nil {
		t.Fatal(err)
	}
	if got := f.cursors(); strings.Join(got, ",") != "null,null" {
		t.Errorf("streams opened from %q, want null twice", got)
	}
}

// A stream the server closes is reconnected from its cursor; when the
// reconnection ends before it sends anything (the server has gone), the
// watch ends with why, not in a loop of reconnections.
func TestWatchPushServerGone(t *testing.T) {
	gone := fail.New(fail.Connection, "", "cannot reach server \"srv\": connection refused")
	f := &fakeStreams{fakeEvents: fakeEvents{list: pushList}, closeAt: true, end: gone,
		scripts: [][]string{{`active {"cursor":"0"}`, `heartbeat {"cursor":"4"}`}, nil}}
	var notes []string
	var mu sync.Mutex
	_, err := runEvents(t, f, WatchOptions{Events: []string{"a"},
		Note: func(s string) { mu.Lock(); notes = append(notes, s); mu.Unlock() }})
	if err != gone {
		t.Fatalf("err = %v, want the reconnection's %v", err, gone)
	}
	if got := f.cursors(); strings.Join(got, ",") != "null,4" {
		t.Errorf("streams opened from %q, want null then 4", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 1 || notes[0] != `the event stream of "a" ended (the server closed it): reconnecting from its cursor` {
		t.Errorf("notes = %q", notes)
	}
}
