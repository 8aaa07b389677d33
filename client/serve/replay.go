package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// Replay is a server made of a recording (mcpc replay): each request a
// client sends is answered with what the recorded server sent for the
// request the recording pairs it with (replay_match.go), the
// notifications and questions that came before the answer first. Like
// Mock, it holds no server: each client's Line answers by itself. What
// has been answered is the Replay's, shared by every client (a CI job's
// invocations one after another, over --http).
type Replay struct {
	Name  string // the recording file, as messages name it
	Limit int64  // bytes in one message, both ways (--max-message)
	// Strict is --order strict: a request must match the next recorded
	// one, in the file's order.
	Strict bool

	src       io.ReaderAt // the recording, which the messages are read from again
	exchanges []*exchange
	byMethod  map[string][]*exchange
	byKey     map[string]*exchange // by method and key: the first, which links the others (sameKey)
	scratch   []byte               // a key being made, while the recording is read
	// legacy says the recording has an initialize: a 2025 server's, to
	// which server/discover is an unknown method.
	legacy bool

	mu        sync.Mutex
	next      int       // --order strict: the next exchange to answer
	last      *exchange // the exchange answered last
	unmatched int       // the requests answered with an error for want of a match
}

// exchange is one recorded request and what came for it: messages in
// the order they came, the answer last (none when it never came).
type exchange struct {
	line   int    // the request's line in the file
	conn   int    // its connection
	id     string // its JSON-RPC id, as recorded (raw JSON)
	method string
	req    played // where the request lies, for its params when a request misses
	params any    // its params as match compares them: read when first needed (paramsOf)
	key    string // its params in canonical form (matchKey): equal keys match
	// sameKey is the next exchange of the same method and key, in the
	// file's order; lastKey, on the first of them, the last.
	sameKey, lastKey *exchange
	token            string // its progress token (raw JSON), to put the client's in its place
	msgs             []played
	done             bool // its answer came
	used             bool
}

// played is a message an exchange sends the client: where it lies in
// the recording, read again when it is sent, so a replay holds a few
// words a message and not the messages (a recording of a million
// notifications is served in a few tens of MiB).
type played struct {
	at   int64 // its offset in the recording
	n    int64 // its length; 0: more.raw holds it, or it was left out
	kind playKind
	more *playedMore // what few messages need
}

// playedMore is what a played message needs beyond its place.
type playedMore struct {
	// raw is a message of a batch, kept: where it lies is not known.
	raw json.RawMessage
	// asked is, for a question (askMsg), the client's recorded answer,
	// as match compares them (nil when none was recorded).
	asked any
	// omitted is an answer the recording left out, with its size.
	omitted int
}

type playKind uint8

const (
	notifyMsg   playKind = iota // a notification, sent as it came
	progressMsg                 // notifications/progress: sent with the client's token, if it gave one
	askMsg                      // a server's request to the client: sent with an id of replay's, its answer awaited
	answerMsg                   // the answer: sent with the client's id
)

// ReadReplay reads the recording from r into a Replay: every exchange
// of every connection, each message under limit. An unreadable
// recording is an error that names the line; ctx ending (SIGTERM,
// --timeout) stops a long one.
func ReadReplay(ctx context.Context, r Recording, name string, limit int64) (*Replay, error) {
	rr, err := transport.NewRecordReader(r, int(limit))
	if err != nil {
		return nil, err
	}
	p := &Replay{Name: name, Limit: limit, src: r, byMethod: map[string][]*exchange{}, byKey: map[string]*exchange{}}
	conns := map[int]*pairing{}
	for n := 1; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		e, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		c := conns[e.Conn]
		if c == nil {
			c = &pairing{open: map[string]*exchange{}, asks: map[string]question{}}
			conns[e.Conn] = c
		}
		if err := p.pair(c, e); err != nil {
			return nil, fmt.Errorf("line %d: %v", e.Line, err)
		}
	}
	return p, nil
}

// pairing is a connection's state while a recording is read: its
// exchanges waiting for their answer, newest last, and the questions
// its server asked, by id, waiting for the client's recorded answer.
type pairing struct {
	open  map[string]*exchange
	order []*exchange
	asks  map[string]question
}

// question is where a server's question lies: its exchange's messages
// grow as the file is read, so it is found again by index.
type question struct {
	ex *exchange
	i  int
}

// latest is the exchange opened last that is waiting still, or nil.
func (c *pairing) latest() *exchange {
	for i := len(c.order) - 1; i >= 0; i-- {
		if ex := c.order[i]; !ex.done {
			c.order = c.order[:i+1]
			return ex
		}
	}
	c.order = c.order[:0]
	return nil
}

// pair takes one line of the recording: a request the client sent opens
// an exchange, what the server sent joins the exchange it came for.
func (p *Replay) pair(c *pairing, e *transport.RecordEntry) error {
	switch {
	case e.Omitted != nil:
		p.omitted(c, e)
		return nil
	case e.Msg == nil:
		return nil // an HTTP head, a connection, text, a note
	}
	if e.Msg[0] != '[' {
		return p.one(c, e, e.Msg, played{at: e.MsgAt, n: int64(len(e.Msg))})
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(e.Msg, &msgs); err != nil {
		return err
	}
	for _, raw := range msgs {
		if err := p.one(c, e, raw, played{more: &playedMore{raw: raw}}); err != nil {
			return err
		}
	}
	return nil
}

// one takes one message of line e: raw, which is at. raw is the
// reader's buffer: what is kept of it is copied.
func (p *Replay) one(c *pairing, e *transport.RecordEntry, raw json.RawMessage, at played) error {
	m := rawmsg.Parse(raw)
	if e.Dir == "out" {
		return p.sent(c, e, raw, at, m)
	}
	p.came(c, at, m)
	return nil
}

// sent takes a message the client sent: a request opens an exchange, an
// answer to the server's question is what the client answered then.
// Notifications (initialized, cancelled) are the client's own: nothing
// is played for them.
func (p *Replay) sent(c *pairing, e *transport.RecordEntry, raw json.RawMessage, at played, m rawmsg.Message) error {
	switch {
	case m.Method.Exists() && m.ID.Exists():
		if m.Params.Exists() && !m.Params.IsObject() && !m.Params.IsArray() && m.Params.Type != gjson.Null {
			return errors.New("the request's params are not an object")
		}
		ex := &exchange{line: e.Line, conn: e.Conn, id: strings.Clone(m.ID.Raw), req: at,
			token: strings.Clone(m.Params.Get("_meta.progressToken").Raw)}
		p.index(ex, m.Method.String(), rawmsg.Within(raw, m.Params))
		if ex.method == "initialize" {
			p.legacy = true
		}
		c.open[ex.id] = ex
		c.order = append(c.order, ex)
	case !m.Method.Exists() && m.ID.Exists():
		if q, ok := c.asks[m.ID.Raw]; ok {
			delete(c.asks, m.ID.Raw)
			q.ex.msgs[q.i].more.asked, _, _ = matchForm("", answerOf(raw))
		}
	}
	return nil
}

// index files a request's exchange by its method and by its method and
// key. The key is made in a buffer of the Replay's, and what is kept of
// it and of the method is one string per distinct key, shared: a
// recording of thousands of requests costs few allocations each.
func (p *Replay) index(ex *exchange, method string, params []byte) {
	p.scratch = append(append(p.scratch[:0], method...), '\n')
	p.scratch = appendMatchKey(p.scratch, method, params)
	if first := p.byKey[string(p.scratch)]; first != nil {
		ex.method, ex.key = first.method, first.key
		first.lastKey.sameKey, first.lastKey = ex, ex
	} else {
		k := string(p.scratch)
		ex.method, ex.key = k[:len(method)], k[len(method)+1:]
		ex.lastKey = ex
		p.byKey[k] = ex
	}
	p.exchanges = append(p.exchanges, ex)
	p.byMethod[ex.method] = append(p.byMethod[ex.method], ex)
}

// came takes a message the server sent: an answer ends its exchange; a
// notification or a question belongs to the exchange its progress token
// names, else to the newest one waiting (what a server sends while it
// works on a request is for that request); one that comes when none
// waits is not played.
func (p *Replay) came(c *pairing, at played, m rawmsg.Message) {
	if !m.Method.Exists() {
		ex := c.open[m.ID.Raw]
		if ex == nil {
			return // an answer to no request recorded
		}
		delete(c.open, m.ID.Raw)
		at.kind = answerMsg
		ex.msgs, ex.done = append(ex.msgs, at), true
		return
	}
	ex := c.latest()
	if tok := m.Params.Get("progressToken"); tok.Exists() && m.Method.String() == "notifications/progress" {
		for _, o := range c.open {
			if o.token == tok.Raw {
				ex = o
			}
		}
	}
	if ex == nil {
		return
	}
	if !m.ID.Exists() {
		at.kind = notifyMsg
		if m.Method.String() == "notifications/progress" {
			at.kind = progressMsg
		}
		ex.msgs = append(ex.msgs, at)
		return
	}
	at.kind = askMsg
	if at.more == nil {
		at.more = &playedMore{}
	}
	ex.msgs = append(ex.msgs, at)
	c.asks[strings.Clone(m.ID.Raw)] = question{ex, len(ex.msgs) - 1}
}

// omitted takes a line standing for a message over --max-message: an
// answer left out still ends its exchange, as an error that says so.
func (p *Replay) omitted(c *pairing, e *transport.RecordEntry) {
	o := e.Omitted
	if e.Dir != "in" || o.Method != "" || o.ID == nil {
		return
	}
	if ex := c.open[string(o.ID)]; ex != nil {
		delete(c.open, string(o.ID))
		ex.msgs, ex.done = append(ex.msgs, played{kind: answerMsg, more: &playedMore{omitted: o.Bytes}}), true
	}
}

// Recording is what a replay is read from: a file, read through once,
// then at the places of the messages it sends.
type Recording interface {
	io.Reader
	io.ReaderAt
}

// paramsOf is ex's request's params in match form, read again from the
// recording the first time a request misses; the caller holds mu.
func (p *Replay) paramsOf(ex *exchange) any {
	if ex.params == nil {
		raw, err := p.message(ex.req)
		if err == nil {
			ex.params, _, _ = matchForm(ex.method, []byte(rawmsg.Parse(raw).Params.Raw))
		}
		if ex.params == nil {
			ex.params = map[string]any{}
		}
	}
	return ex.params
}

// message is m's bytes as recorded.
func (p *Replay) message(m played) ([]byte, error) {
	if m.n == 0 {
		return m.more.raw, nil
	}
	buf := make([]byte, m.n)
	_, err := p.src.ReadAt(buf, m.at)
	return buf, err
}

// Label names the replay, for messages.
func (p *Replay) Label() string { return "the replay of " + p.Name }

// MaxMessage is p.Limit.
func (p *Replay) MaxMessage() int64 { return p.Limit }

func (p *Replay) answersItself() {}

// Unmatched is how many requests had no answer in the recording.
func (p *Replay) Unmatched() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unmatched
}

// Open is a client's line to the replay, in either era: the recording
// says which one its answers are of.
func (p *Replay) Open(ctx context.Context, era Era) (Line, error) {
	return &replayLine{p: p, out: make(chan jsonrpc.Message, 64), done: make(chan struct{}),
		asks: map[string]chan *jsonrpc.Response{}}, nil
}
