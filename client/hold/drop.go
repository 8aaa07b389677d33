package hold

import (
	"encoding/json"
	"sync"

	"github.com/mcpc-dev/mcpc/client/input"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// Back-pressure on one attached invocation stays with it (mcpc help
// sessions). The server's reader never waits for an invocation: what it
// routes is queued (attach.send). An invocation that reads slowly (its
// stderr is a slow pipe, a terminal scrolled back) has its log messages
// and progress dropped once attachNotes of them wait, and counted; the
// count reaches it in their place, in order (a holdwire.Dropped note before
// the next message, or once its queue is written), and it says how many
// it would have shown. Answers, questions and every other notification
// are never dropped: only an invocation whose queue fills with those (it
// reads nothing at all) is let go.

// attachNotes bounds the log messages and progress queued for one
// invocation.
const attachNotes = attachQueue / 2

// send queues msg for the invocation.
func (a *attach) send(msg jsonrpc.Message) {
	note := droppable(msg)
	if note && a.notes.Load() >= attachNotes {
		a.dropped.add(msg.(*jsonrpc.Request))
		return
	}
	if d := a.dropped.take(); d != nil && !a.put(d) {
		return
	}
	if note {
		a.notes.Add(1)
	}
	if !a.put(msg) && note {
		a.notes.Add(-1)
	}
}

// put queues msg, or lets the invocation go when its queue is full.
func (a *attach) put(msg jsonrpc.Message) bool {
	a.queued.Add(1)
	select {
	case a.out <- msg:
		return true
	case <-a.done:
		a.queued.Add(-1)
	default:
		a.queued.Add(-1)
		a.close()
	}
	return false
}

// droppable says whether msg may be dropped for an invocation that reads
// slowly: a log message or progress, which only inform. A list change
// (it invalidates what the invocation cached), the server giving up a
// question, answers and questions all must arrive.
func droppable(msg jsonrpc.Message) bool {
	r, ok := msg.(*jsonrpc.Request)
	return ok && !r.ID.IsValid() && (r.Method == "notifications/message" || r.Method == "notifications/progress")
}

// dropCount counts what was dropped for one invocation since it was last
// told.
type dropCount struct {
	mu       sync.Mutex
	levels   map[string]int64
	progress int64
}

func (d *dropCount) add(m *jsonrpc.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if m.Method == "notifications/progress" {
		d.progress++
		return
	}
	if d.levels == nil {
		d.levels = map[string]int64{}
	}
	// An unknown level is counted as such: the invocation shows it.
	level := rawmsg.View(m.Params).Get("level").String()
	if input.LevelRank(level) == len(input.LogLevels) {
		level = "unknown"
	}
	d.levels[level]++
}

// take is the note of what was dropped, and forgets it; nil: nothing was.
func (d *dropCount) take() *jsonrpc.Request {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.levels == nil && d.progress == 0 {
		return nil
	}
	params, _ := json.Marshal(holdwire.DroppedParams{Levels: d.levels, Progress: d.progress})
	d.levels, d.progress = nil, 0
	return &jsonrpc.Request{Method: holdwire.Dropped, Params: params}
}
