package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// Push delivery of the events extension (events/stream): one long-lived
// request per event type, its notifications (notifications/events/
// active, event, heartbeat, error, terminated) turned into lines and
// cursors as a poll's answers are. The draft makes the heartbeat the
// stream's liveness signal and does not announce its interval: a stream
// silent for twice the longest gap seen between its heartbeats (the
// draft's 30 s maximum before one is seen) is dead, and is reconnected
// from its cursor, as is one that drops; a null cursor is never sent
// back (the type cannot be replayed: its stream restarts from now).

// EventStreamer is what push delivery needs of the connection.
type EventStreamer interface {
	CanStream() bool
	StreamEvents(ctx context.Context, name string, cursor *string, frame func(method string, params json.RawMessage)) error
}

// The heartbeat bounds: the draft's "at least every 30 seconds", and the
// least silence taken for a dead stream, whatever its heartbeats' pace.
const (
	maxHeartbeat = 30 * time.Second
	minSilence   = time.Second
)

// pushBackoff bounds the wait before reconnecting a stream that lasted
// less than its first backoff: a server that closes each stream at once
// is not asked again in a loop.
const (
	pushBackoffFirst = 500 * time.Millisecond
	pushBackoffMax   = 30 * time.Second
)

// errSilent ends a stream that went silent (the liveness check).
var errSilent = errors.New("the event stream went silent")

// pushDedup is how many event ids a stream remembers: an event the
// server sends again after a reconnect (the draft's delivery is at least
// once) is written once.
const pushDedup = 512

// maxDedupID bounds an event id remembered: a longer one (a server's
// choice, bounded only by --max-message) is not deduplicated, so the
// ids kept stay within pushDedup × maxDedupID bytes.
const maxDedupID = 256

// pushFrame is one notification of a stream, or its end.
type pushFrame struct {
	method string
	params json.RawMessage
	ended  bool
	err    error
}

// pusher follows one event type's push stream.
type pusher struct {
	w      *Watch
	es     EventStreamer
	name   string
	cursor *string

	cancel  context.CancelCauseFunc // the stream open
	frames  chan pushFrame
	first   *pushFrame    // the frame startPush waited for, handled first by run
	done    chan struct{} // closed when the stream open has ended
	opened  time.Time
	heard   bool          // the stream open has sent a frame
	beat    time.Duration // the longest gap between heartbeats seen
	last    time.Time     // the last heartbeat of the stream open
	backoff time.Duration

	seen  map[string]bool
	order []string
}

// startPush opens the stream of name and waits for its first frame (the
// draft's notifications/events/active), so that an event after the ready
// line is seen; the frames after it are read by run.
func (w *Watch) startPush(ctx context.Context, es EventStreamer, name string, cursor *string) (*pusher, error) {
	p := &pusher{w: w, es: es, name: name, cursor: cursor, seen: map[string]bool{}}
	p.open(ctx)
	wait := time.NewTimer(2 * maxHeartbeat)
	defer wait.Stop()
	select {
	case f := <-p.frames:
		if f.ended {
			return nil, p.failure(f.err)
		}
		p.first = &f // handled by run, after the ready line
		return p, nil
	case <-wait.C:
		p.cancel(errSilent)
		return nil, fail.New(fail.Protocol, "", "server %q did not confirm the event stream of %q within %s", w.server, name, 2*maxHeartbeat)
	case <-ctx.Done():
		p.cancel(nil)
		return nil, context.Cause(ctx)
	}
}

// open starts a stream from p.cursor; its frames come on p.frames.
func (p *pusher) open(ctx context.Context) {
	sctx, cancel := context.WithCancelCause(ctx)
	ch, done := make(chan pushFrame, watchQueue), make(chan struct{})
	p.cancel, p.frames, p.done, p.opened, p.last, p.heard = cancel, ch, done, time.Now(), time.Time{}, false
	go func() {
		defer close(done)
		defer close(ch)
		err := p.es.StreamEvents(sctx, p.name, p.cursor, func(method string, params json.RawMessage) {
			select {
			case ch <- pushFrame{method: method, params: bytes.Clone(params)}:
			case <-sctx.Done():
			}
		})
		select {
		case ch <- pushFrame{ended: true, err: err}:
		case <-sctx.Done():
		}
	}()
}

// run reads the frames until ctx ends or the stream cannot go on, then
// ends the stream open (on stdio, telling the server).
func (p *pusher) run(ctx context.Context) {
	defer func() {
		p.cancel(nil)
		<-p.done
	}()
	if f := p.first; f != nil && !p.frame(ctx, *f) {
		return
	}
	for {
		quiet := time.NewTimer(p.silence())
		select {
		case f, ok := <-p.frames:
			quiet.Stop()
			if !ok || f.ended {
				if !p.ended(ctx, f.err) {
					return
				}
				continue
			}
			p.heard = true
			if !p.frame(ctx, f) {
				return
			}
		case <-quiet.C:
			if len(p.frames) > 0 {
				continue // read late (stdout was slow), not silent
			}
			p.note(fmt.Sprintf("the event stream of %q went silent for %s (twice its heartbeat): reconnecting from its cursor", p.name, p.silence().Round(100*time.Millisecond)))
			p.cancel(errSilent)
			if !p.reopen(ctx) {
				return
			}
		case <-ctx.Done():
			quiet.Stop()
			return
		}
	}
}

// silence is how long a stream may be silent before it is taken for dead.
func (p *pusher) silence() time.Duration {
	if p.beat == 0 {
		return 2 * maxHeartbeat
	}
	return min(max(2*p.beat, minSilence), 2*maxHeartbeat)
}

// ended handles the end of a stream: one that had sent something and
// that the server closed or that dropped is reconnected; a refusal, or a
// reconnection that ends before it sends anything (the server has gone
// away: nothing to follow), ends the watch. False: the watch ends.
func (p *pusher) ended(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if code := fail.CodeOf(err); p.heard && (code == "" || code == fail.Connection || code == fail.Protocol) {
		why := "the server closed it"
		if err != nil {
			why = err.Error() // a *fail.Error's is its message
		}
		p.note(fmt.Sprintf("the event stream of %q ended (%s): reconnecting from its cursor", p.name, why))
		p.cancel(nil)
		return p.reopen(ctx)
	}
	p.w.deliver(ctx, watchEvent{kind: "failed", err: p.failure(err)})
	return false
}

// reopen opens the stream again, after a backoff when the last one did
// not last.
func (p *pusher) reopen(ctx context.Context) bool {
	if time.Since(p.opened) < pushBackoffFirst {
		p.backoff = min(max(2*p.backoff, pushBackoffFirst), pushBackoffMax)
		if waitCtx(ctx, p.backoff) {
			return false
		}
	} else {
		p.backoff = 0
	}
	p.open(ctx)
	return true
}

// failure is err as the watch reports it.
func (p *pusher) failure(err error) error {
	if err == nil {
		return fail.New(fail.Protocol, "", "server %q ended the event stream of %q before confirming it", p.w.server, p.name)
	}
	return err
}

func (p *pusher) note(s string) {
	if p.w.o.Note != nil {
		p.w.o.Note(s)
	}
}

// frame handles one notification; false when the watch ends.
func (p *pusher) frame(ctx context.Context, f pushFrame) bool {
	v := rawmsg.View(f.params)
	switch f.method {
	case "notifications/events/active":
		if v.Get("truncated").Bool() {
			p.w.deliver(ctx, watchEvent{kind: "truncated", name: p.name})
		}
		return p.keep(ctx, v.Get("cursor"))
	case "notifications/events/event":
		return p.event(ctx, f.params, v)
	case "notifications/events/heartbeat":
		now := time.Now()
		if !p.last.IsZero() {
			p.beat = max(p.beat, now.Sub(p.last))
		}
		p.last = now
		return p.keep(ctx, v.Get("cursor"))
	case "notifications/events/error":
		p.note(fmt.Sprintf("server %q reported an error on the event stream of %q, which goes on: %s", p.w.server, p.name, streamError(v)))
	case "notifications/events/terminated":
		p.w.deliver(ctx, watchEvent{kind: "failed", err: fail.New(fail.Rejected, "the server ended the subscription; 'mcpc watch' again once the cause is fixed",
			"server %q terminated the event stream of %q: %s", p.w.server, p.name, streamError(v))})
		return false
	}
	return true
}

// streamError is an error or terminated notification's error, as text.
func streamError(v gjson.Result) string {
	e := v.Get("error")
	s := fmt.Sprintf("%s (%d)", cmpOr(e.Get("message").String(), "no message"), e.Get("code").Int())
	if r := e.Get("data.reason"); r.Type == gjson.String {
		s += ": " + r.Str
	}
	return s
}

// event writes one event, once: an id seen lately is the server sending
// it again after a reconnect.
func (p *pusher) event(ctx context.Context, raw json.RawMessage, v gjson.Result) bool {
	id := v.Get("eventId").String()
	if id != "" && len(id) <= maxDedupID {
		if p.seen[id] {
			return p.keep(ctx, v.Get("cursor")) // written before: only its cursor is new
		}
		id = strings.Clone(id) // not the whole frame's bytes, kept with it
		p.seen[id] = true
		p.order = append(p.order, id)
		if len(p.order) > pushDedup {
			delete(p.seen, p.order[0])
			p.order = p.order[1:]
		}
	}
	data := json.RawMessage("null")
	if d := v.Get("data"); d.Exists() {
		data = rawmsg.Within(raw, d)
	}
	line := WatchLine{Event: cmpOr(v.Get("name").String(), p.name), EventID: id, Timestamp: v.Get("timestamp").String(), Data: data}
	ev := watchEvent{kind: "event", line: line, name: p.name}
	if c := v.Get("cursor"); c.Exists() {
		// The cursor after this event, kept as it is written: a watch
		// that ends at --count there goes on after it next time.
		p.cursor, ev.keep = p.cursorOf(c), c.Type == gjson.String
		ev.cursor = c.Str
	}
	return p.w.deliver(ctx, ev)
}

// cursorOf is a frame's cursor: nil when null (no replay).
func (p *pusher) cursorOf(c gjson.Result) *string {
	if c.Type != gjson.String {
		return nil
	}
	s := c.Str
	return &s
}

// keep takes the cursor a frame carries (absent: unchanged; null: the
// type cannot be replayed, nothing to send back or keep) and queues it
// to be kept once the lines before it are written.
func (p *pusher) keep(ctx context.Context, c gjson.Result) bool {
	if !c.Exists() {
		return true
	}
	if p.cursor = p.cursorOf(c); p.cursor == nil {
		return true
	}
	return p.w.deliver(ctx, watchEvent{kind: "cursor", name: p.name, cursor: *p.cursor})
}
