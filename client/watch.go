package client

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/listkind"
	"github.com/mcpc-dev/mcpc/internal/listpages"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// WatchKinds are what mcpc watch follows: the words after SERVER.
var WatchKinds = []string{"logs", "lists", "progress", "resources", "events"}

// watchLists are the families whose list_changed a watch of lists follows.
var watchLists = []string{"tools", "prompts", "resources"}

// watchQueue bounds the notifications received and not yet written: a
// server that sends faster than stdout's reader takes them loses the
// rest, each a gap in seq, rather than growing mcpc's memory.
const watchQueue = 256

// WatchSource is what a watch uses of its connection (conn.Conn).
type WatchSource interface {
	ListRaw(ctx context.Context, kind string) (json.RawMessage, error)
	ReadResource(ctx context.Context, uri string) (json.RawMessage, error)
	Subscribe(ctx context.Context, uri string) error
	Unsubscribe(ctx context.Context, uri string) error
	// Gone returns when the connection ends, with why; nil when ctx did.
	Gone(ctx context.Context) error
}

// WatchOptions say what a watch follows and when it stops.
type WatchOptions struct {
	What      []string // of WatchKinds, as given
	Resources []string // the URIs of "resources"
	Read      bool     // re-read an updated resource, its contents in the line
	Events    []string // the event types of "events"; none: all that can be followed
	// SinceLast starts each event type at the cursor kept by the last
	// watch (Cursors), and keeps the one this watch gets to.
	SinceLast bool
	Cursors   EventCursors
	Drain     bool          // end once every event type has no more events
	Delivery  string        // how events are followed: "poll", "push", or "" (push where offered)
	MinPoll   time.Duration // the floor on the server's nextPollMs (0: DefaultMinPoll)
	Note      func(string)  // a note for stderr
	Count     int           // stop after so many lines of events; 0: never
	// Until, when set, stops the watch after the first line it holds for.
	Until func(line []byte) (bool, error)
	// Write writes one line (without its newline) to stdout, flushed
	// unless Flush is set.
	Write func(line []byte) error
	// Flush, when set, flushes what Write wrote: the watch calls it when
	// no notification waits, so a flood's lines go out in few writes and
	// a line is never held while the watch is idle.
	Flush func() error
	Now   func() time.Time
}

// Watch follows what a server pushes and writes it as JSON Lines
// (docs/design.md, "mcpc watch"): its hooks (Log, Progress, Pushed) are
// the connection's, set before it connects; Run writes.
type Watch struct {
	o       WatchOptions
	seq     atomic.Int64
	events  chan watchEvent
	dropped atomic.Int64
	names   map[string][]string // each watched list's names, as last listed
	// subscribed are the resources subscribed to, unsubscribed at the end.
	subscribed []string
	// The events' pollers (watch_events.go): how many, how many are
	// drained, and their loops, started after the ready line.
	pollers, drained int
	later            []func(context.Context)
	server           string // as the ready line names it
}

// watchEvent is one notification received: seq is its place in what the
// server sent, counted as it arrived.
type watchEvent struct {
	seq    int64
	at     time.Time
	kind   string    // log, progress, list, resource, event; cursor, drained, failed, truncated (eventControl)
	cursor string    // cursor: the cursor to keep; event, with keep: the one after it
	keep   bool      // event: keep cursor once it is written (push: each event has its own)
	err    error     // failed: why
	name   string    // list: the family; resource: the URI
	line   WatchLine // log, progress: the line's fields
}

// WatchLine is one line of mcpc watch's output. Fields a kind has not
// are left out.
type WatchLine struct {
	Seq  int64  `json:"seq"`
	Time string `json:"time"`
	Kind string `json:"kind"`
	// ready: the server, and what is watched.
	Server   string   `json:"server,omitempty"`
	Watching []string `json:"watching,omitempty"`
	// event: its type, id and time as the server gave them (data: its data)
	Event     string `json:"event,omitempty"`
	EventID   string `json:"eventId,omitempty"`
	Timestamp string `json:"timestamp,omitempty"`
	// log
	Level  string `json:"level,omitempty"`
	Logger string `json:"logger,omitempty"`
	Data   any    `json:"data,omitempty"`
	// progress
	Progress *mcp.ProgressNotificationParams `json:"progress,omitempty"`
	// list
	List    string    `json:"list,omitempty"`
	Added   *[]string `json:"added,omitempty"`
	Removed *[]string `json:"removed,omitempty"`
	// resource
	URI      string          `json:"uri,omitempty"`
	Contents json.RawMessage `json:"contents,omitempty"`
}

// NewWatch is a watch by o, not yet started.
func NewWatch(o WatchOptions) *Watch {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Watch{o: o, events: make(chan watchEvent, watchQueue), names: map[string][]string{}}
}

// SetCursors sets where a watch of events keeps its cursors, once the
// server is known.
func (w *Watch) SetCursors(c EventCursors) { w.o.Cursors = c }

// SetNote sets where a watch's notes go.
func (w *Watch) SetNote(note func(string)) { w.o.Note = note }

// Watches says whether kind is among what is watched.
func (w *Watch) Watches(kind string) bool { return slices.Contains(w.o.What, kind) }

// Dropped is how many notifications were lost to a slow reader.
func (w *Watch) Dropped() int64 { return w.dropped.Load() }

// receive queues a notification, or drops it when the queue is full
// (its seq is then missing from the output).
func (w *Watch) receive(ev watchEvent) {
	ev.seq, ev.at = w.seq.Add(1), w.o.Now()
	select {
	case w.events <- ev:
	default:
		w.dropped.Add(1)
	}
}

// Lost is the connection's hook of the notifications a session's holder
// dropped: they are a gap in seq, as those the watch drops are.
func (w *Watch) Lost(n int64) {
	w.seq.Add(n)
	w.dropped.Add(n)
}

// Log is the connection's log hook (input.Input.Log): a message at or
// above --log-level.
func (w *Watch) Log(level, logger string, data any) {
	if !w.Watches("logs") {
		return
	}
	w.receive(watchEvent{kind: "log", line: WatchLine{Level: level, Logger: logger, Data: data}})
}

// Progress is the connection's progress hook.
func (w *Watch) Progress(p *mcp.ProgressNotificationParams) {
	if !w.Watches("progress") || p == nil {
		return
	}
	w.receive(watchEvent{kind: "progress", line: WatchLine{Progress: p}})
}

// Pushed is the connection's hook of list changes and resource updates
// (conn.ConnectOptions.Pushed).
func (w *Watch) Pushed(kind, name string) {
	switch {
	case kind == "list" && w.Watches("lists"):
	case kind == "resource" && slices.Contains(w.o.Resources, name):
	default:
		return
	}
	w.receive(watchEvent{kind: kind, name: name})
}

// Run sets up what is watched (the lists as they are now, the resources'
// subscriptions), writes the ready line, then a line per notification
// until --count or --until is met (nil), ctx ends (its error) or the
// connection does (why). server is how the ready line names the server.
func (w *Watch) Run(ctx context.Context, server string, src WatchSource) error {
	defer w.unsubscribe(ctx, src)
	err := w.run(ctx, server, src)
	if ferr := w.flush(); err == nil {
		err = ferr
	}
	return err
}

// run is Run until the watch ends, its last lines perhaps not flushed.
func (w *Watch) run(ctx context.Context, server string, src WatchSource) error {
	w.server = server
	if err := w.start(ctx, src); err != nil {
		return err
	}
	if _, err := w.write(WatchLine{Kind: "ready", Server: server, Watching: w.o.What}, w.o.Now()); err != nil {
		return err
	}
	if err := w.flush(); err != nil {
		return err
	}
	gctx, stop := context.WithCancel(ctx)
	defer stop()
	gone := make(chan error, 1)
	go func() { gone <- src.Gone(gctx) }()
	var loops sync.WaitGroup
	defer w.stopLoops(stop, &loops)
	for _, f := range w.later {
		loops.Add(1)
		go func() {
			defer loops.Done()
			f(gctx)
		}()
	}
	for n := 0; ; {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-gone:
			return w.flushed(ctx, src, err)
		case ev := <-w.events:
			if counted, done, err := w.eventControl(ev); !counted || err != nil {
				if err == nil && !done && len(w.events) == 0 {
					// The lines before a cursor go out as any others do:
					// once nothing waits.
					err = w.flush()
				}
				if err != nil || done {
					return err
				}
				continue
			}
			done, err := w.event(ctx, src, ev)
			if err == nil && ev.keep {
				err = w.keepCursor(ev.name, ev.cursor)
			}
			if err == nil && len(w.events) == 0 {
				err = w.flush()
			}
			if err != nil || done {
				return err
			}
			if n++; w.o.Count > 0 && n >= w.o.Count {
				return nil
			}
		}
	}
}

// loopsWait bounds the wait for the events' loops at a watch's end: a
// push stream on stdio tells the server it is cancelled (within
// transport's cancelWait), so that the server hears it before mcpc
// exits and closes the pipe.
const loopsWait = 2 * time.Second

// stopLoops ends the loops started after the ready line and waits for
// them, a while.
func (w *Watch) stopLoops(stop func(), loops *sync.WaitGroup) {
	stop()
	done := make(chan struct{})
	go func() {
		loops.Wait()
		close(done)
	}()
	t := time.NewTimer(loopsWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// flush flushes the lines written (WatchOptions.Flush).
func (w *Watch) flush() error {
	if w.o.Flush == nil {
		return nil
	}
	return w.o.Flush()
}

// flushed writes what was queued before the connection ended, then
// returns why it did (err).
func (w *Watch) flushed(ctx context.Context, src WatchSource, err error) error {
	for {
		select {
		case ev := <-w.events:
			if done, werr := w.event(ctx, src, ev); werr != nil || done {
				return werr
			}
		default:
			return err
		}
	}
}

// start lists what a watch of lists compares against and subscribes to
// the resources.
func (w *Watch) start(ctx context.Context, src WatchSource) error {
	if w.Watches("lists") {
		for _, kind := range watchLists {
			names, err := w.list(ctx, src, kind)
			if err != nil {
				return err
			}
			w.names[kind] = names
		}
	}
	for _, uri := range w.o.Resources {
		if err := src.Subscribe(ctx, uri); err != nil {
			return err
		}
		w.subscribed = append(w.subscribed, uri)
	}
	if w.Watches("events") {
		return w.startEvents(ctx, src)
	}
	return nil
}

// unsubscribeWait bounds the unsubscriptions at a watch's end, Ctrl-C's
// or --timeout's included: a session's server would otherwise go on
// sending the updates to the holder, and the holder to every invocation.
const unsubscribeWait = time.Second

// unsubscribe ends the resources' subscriptions, within unsubscribeWait
// of the watch's end (a server that went away does not answer).
func (w *Watch) unsubscribe(ctx context.Context, src WatchSource) {
	if len(w.subscribed) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unsubscribeWait)
	defer cancel()
	for _, uri := range w.subscribed {
		if src.Unsubscribe(ctx, uri) != nil {
			return
		}
	}
}

func (w *Watch) list(ctx context.Context, src WatchSource, kind string) ([]string, error) {
	raw, err := src.ListRaw(ctx, kind)
	if err != nil {
		return nil, err
	}
	k, _ := listkind.Of(kind)
	var names []string
	listpages.Names(raw, k.Key, func(_ gjson.Result, name string) { names = append(names, name) })
	return names, nil
}

// event writes ev's line and says whether --until is met.
func (w *Watch) event(ctx context.Context, src WatchSource, ev watchEvent) (bool, error) {
	l := ev.line
	l.Seq, l.Kind = ev.seq, ev.kind
	switch ev.kind {
	case "list":
		names, err := w.list(ctx, src, ev.name)
		if err != nil {
			return false, err
		}
		added, removed := diffNames(w.names[ev.name], names)
		w.names[ev.name] = names
		l.List, l.Added, l.Removed = ev.name, &added, &removed
	case "resource":
		l.URI = ev.name
		if w.o.Read {
			raw, err := src.ReadResource(ctx, ev.name)
			if err != nil {
				return false, err
			}
			l.Contents = json.RawMessage("null")
			if c := rawmsg.View(raw).Get("contents"); c.Exists() {
				l.Contents = rawmsg.Within(raw, c)
			}
		}
	}
	return w.writeUntil(l, ev.at)
}

// diffNames is what after adds to before and what it removes, each in
// its list's order.
func diffNames(before, after []string) (added, removed []string) {
	return missing(after, before), missing(before, after)
}

// missing is what of names is not in of, in names' order (never nil: the
// line shows an empty array).
func missing(names, of []string) []string {
	in := make(map[string]bool, len(of))
	for _, n := range of {
		in[n] = true
	}
	out := []string{}
	for _, n := range names {
		if !in[n] {
			out = append(out, n)
		}
	}
	return out
}

// writeUntil writes l and says whether --until holds for it.
func (w *Watch) writeUntil(l WatchLine, at time.Time) (bool, error) {
	b, err := w.write(l, at)
	if err != nil || w.o.Until == nil {
		return false, err
	}
	return w.o.Until(b)
}

// write writes l, received at, and returns it as written.
func (w *Watch) write(l WatchLine, at time.Time) ([]byte, error) {
	l.Time = at.UTC().Format("2006-01-02T15:04:05.000Z")
	b, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	return b, w.o.Write(b)
}
