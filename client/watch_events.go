package client

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// The events extension (the draft of
// modelcontextprotocol/experimental-ext-triggers-events, "MCP Events —
// Design Sketch"): mcpc watch SERVER events [TYPE…] polls each event
// type (events/poll) at the interval the server asks (nextPollMs, with a
// floor), writes a line per event, and keeps the cursor it got to
// (--since-last) once the lines before it are written.

// EventSource is what a watch of events needs of the connection.
type EventSource interface {
	OffersEvents() bool
	ListEvents(ctx context.Context) (json.RawMessage, error)
	PollEvents(ctx context.Context, name string, cursor *string, max int) (json.RawMessage, error)
}

// EventCursors keeps a server's cursors across invocations, by event type.
type EventCursors interface {
	Load(event string) (string, bool)
	Save(event, cursor string) error
}

// DefaultMinPoll is the floor on the server's nextPollMs: the draft's
// default, against a server that would have the client poll in a loop.
const DefaultMinPoll = time.Second

// maxPollWait bounds a nextPollMs: a server that says a day is polled
// within ten minutes all the same, so a watch is known to be alive.
const maxPollWait = 10 * time.Minute

// poll is one events/poll answer, as the draft defines it.
type poll struct {
	Events    []json.RawMessage `json:"events"`
	Cursor    *string           `json:"cursor"`
	Truncated bool              `json:"truncated"`
	HasMore   bool              `json:"hasMore"`
	NextPoll  int64             `json:"nextPollMs"`
}

// eventType is one event type a watch follows, and how: "poll" or "push".
type eventType struct{ name, mode string }

// eventTypes are the event types to follow, each checked against
// events/list, or, none named, every listed one mcpc can follow; each
// by the mode chosen (delivery).
func (w *Watch) eventTypes(ctx context.Context, es EventSource) ([]eventType, error) {
	if !es.OffersEvents() {
		return nil, fail.New(fail.Rejected, "'mcpc watch SERVER' without events follows what every server pushes",
			"server %q does not serve events: it declares no io.modelcontextprotocol/events extension", w.server)
	}
	if w.o.Delivery == "push" && !canStream(es) {
		return nil, fail.New(fail.Usage, "follow them by poll (--delivery poll), or by push directly (--no-session)",
			"the events of server %q cannot be followed by push through its session: the holder does not relay push streams", w.server)
	}
	raw, err := es.ListEvents(ctx)
	if err != nil {
		return nil, err
	}
	modes := map[string]string{}
	var all []string
	rawmsg.View(raw).Get("events").ForEach(func(_, e gjson.Result) bool {
		name := e.Get("name").String()
		if mode := w.delivery(es, stringsOf(e.Get("delivery"))); name != "" && modes[name] == "" && mode != "" {
			modes[name] = mode
			all = append(all, name)
		}
		return len(all) < 1000
	})
	how := w.followedBy(es)
	if len(w.o.Events) == 0 {
		if len(all) == 0 {
			return nil, fail.New(fail.Rejected, "mcpc follows events by poll and push; webhook delivery is not followed",
				"server %q lists no event type that can be followed by %s", w.server, how)
		}
		return typesOf(all, modes), nil
	}
	for _, name := range w.o.Events {
		if modes[name] == "" {
			return nil, fail.New(fail.Usage, "event types the server offers to "+how+": "+strings.Join(all, ", "),
				"server %q offers no event type %q to %s", w.server, name, how)
		}
	}
	return typesOf(w.o.Events, modes), nil
}

func typesOf(names []string, modes map[string]string) []eventType {
	out := make([]eventType, len(names))
	for i, n := range names {
		out[i] = eventType{n, modes[n]}
	}
	return out
}

// delivery is the mode an event type offering offered is followed by:
// push where it can be (the draft's preference, after webhooks, which a
// command line cannot receive), else poll; --delivery, or --drain (only
// a poll tells that there are no more), narrows it. "": none.
func (w *Watch) delivery(es EventSource, offered []string) string {
	push := slices.Contains(offered, "push") && w.o.Delivery != "poll" && !w.o.Drain && canStream(es)
	switch {
	case push:
		return "push"
	case slices.Contains(offered, "poll") && w.o.Delivery != "push":
		return "poll"
	}
	return ""
}

// followedBy names the modes a watch may follow events by, as messages say.
func (w *Watch) followedBy(es EventSource) string {
	switch {
	case w.o.Delivery == "push":
		return "push"
	case w.o.Delivery == "poll" || w.o.Drain || !canStream(es):
		return "poll"
	}
	return "poll or push"
}

func canStream(es EventSource) bool {
	s, ok := es.(EventStreamer)
	return ok && s.CanStream()
}

func stringsOf(r gjson.Result) []string {
	var out []string
	r.ForEach(func(_, v gjson.Result) bool { out = append(out, v.String()); return true })
	return out
}

// poller polls one event type.
type poller struct {
	w      *Watch
	es     EventSource
	name   string
	cursor *string
}

// startEvents makes the first poll of each event type polled, and
// opens the stream of each pushed, before the ready line (a null cursor
// starts from now: an event after the ready line is seen), and starts a
// goroutine per type for what comes after it.
func (w *Watch) startEvents(ctx context.Context, src WatchSource) error {
	es, ok := src.(EventSource)
	if !ok {
		return fmt.Errorf("server %q: this connection cannot follow events", w.server)
	}
	types, err := w.eventTypes(ctx, es)
	if err != nil {
		return err
	}
	for _, t := range types {
		var cursor *string
		if w.o.SinceLast && w.o.Cursors != nil {
			if c, ok := w.o.Cursors.Load(t.name); ok {
				cursor = &c
			}
		}
		if t.mode == "push" {
			p, err := w.startPush(ctx, es.(EventStreamer), t.name, cursor)
			if err != nil {
				return err
			}
			w.later = append(w.later, p.run)
			continue
		}
		p := &poller{w: w, es: es, name: t.name, cursor: cursor}
		first, err := p.once(ctx)
		if err != nil {
			return err
		}
		w.pollers++
		w.later = append(w.later, func(ctx context.Context) { p.run(ctx, first) })
	}
	return nil
}

// once polls and returns the answer; the draft's maxEvents is --count.
func (p *poller) once(ctx context.Context) (*poll, error) {
	raw, err := p.es.PollEvents(ctx, p.name, p.cursor, p.w.o.Count)
	if err != nil {
		return nil, err
	}
	var r poll
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fail.New(fail.Protocol, "", "the server's events/poll answer for %q is not one: %v", p.name, err)
	}
	return &r, nil
}

// run queues r's events, then polls again when the server said, until
// ctx ends, a poll fails, or (--drain) the server has no more.
func (p *poller) run(ctx context.Context, r *poll) {
	for {
		if !p.queue(ctx, r) {
			return
		}
		if !r.HasMore && p.w.o.Drain {
			p.w.deliver(ctx, watchEvent{kind: "drained", name: p.name})
			return
		}
		if !r.HasMore && waitCtx(ctx, pollWait(r.NextPoll, p.w.o.MinPoll)) {
			return
		}
		next, err := p.once(ctx)
		if err != nil {
			p.w.deliver(ctx, watchEvent{kind: "failed", err: err})
			return
		}
		r = next
	}
}

// queue hands r's events to the writer, then the cursor after them, to
// be kept once they are written; false when ctx ended.
func (p *poller) queue(ctx context.Context, r *poll) bool {
	if r.Truncated {
		p.w.deliver(ctx, watchEvent{kind: "truncated", name: p.name})
	}
	for _, e := range r.Events {
		v := rawmsg.View(e)
		data := json.RawMessage("null")
		if d := v.Get("data"); d.Exists() {
			data = rawmsg.Within(e, d)
		}
		line := WatchLine{Event: cmpOr(v.Get("name").String(), p.name), EventID: v.Get("eventId").String(), Timestamp: v.Get("timestamp").String(), Data: data}
		if !p.w.deliver(ctx, watchEvent{kind: "event", line: line}) {
			return false
		}
	}
	p.cursor = r.Cursor
	c := ""
	if r.Cursor != nil {
		c = *r.Cursor
	}
	return p.w.deliver(ctx, watchEvent{kind: "cursor", name: p.name, cursor: c})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// pollWait is how long to wait before the next poll: the server's
// nextPollMs, no less than floor, no more than maxPollWait.
func pollWait(nextMs int64, floor time.Duration) time.Duration {
	if floor <= 0 {
		floor = DefaultMinPoll
	}
	if nextMs > maxPollWait.Milliseconds() {
		return maxPollWait // and no overflow of a huge nextPollMs
	}
	return min(max(time.Duration(nextMs)*time.Millisecond, floor), maxPollWait)
}

func waitCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return true
	case <-t.C:
		return false
	}
}

// deliver queues ev, waiting for room: an event is never dropped, since
// the cursor after it would skip it for good. False when ctx ended.
func (w *Watch) deliver(ctx context.Context, ev watchEvent) bool {
	if ev.kind == "event" {
		ev.seq = w.seq.Add(1)
	}
	ev.at = w.o.Now()
	select {
	case w.events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// keepCursor keeps cursor as where the watch of event got to
// (--since-last), once the lines before it are written: flushed first.
func (w *Watch) keepCursor(event, cursor string) error {
	if !w.o.SinceLast || w.o.Cursors == nil {
		return nil
	}
	if err := w.flush(); err != nil {
		return err
	}
	if err := w.o.Cursors.Save(event, cursor); err != nil {
		return fmt.Errorf("keep the cursor of %q: %w", event, err)
	}
	return nil
}

// eventControl handles the queue's entries that are no line: a cursor to
// keep (its lines are written: flushed first), a type drained, a poll
// that failed, events the server skipped. counted says whether it was a
// line; done that the watch ends.
func (w *Watch) eventControl(ev watchEvent) (counted, done bool, err error) {
	switch ev.kind {
	case "cursor":
		return false, false, w.keepCursor(ev.name, ev.cursor)
	case "drained":
		w.drained++
		return false, w.drained == w.pollers, nil
	case "failed":
		return false, true, ev.err
	case "truncated":
		if w.o.Note != nil {
			w.o.Note(fmt.Sprintf("the server skipped events of %q (it says its answer is truncated: the cursor was older than it keeps)", ev.name))
		}
		return false, false, nil
	}
	return true, false, nil
}
