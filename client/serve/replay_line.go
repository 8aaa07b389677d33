package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// replayLine is one client's Line to a Replay.
type replayLine struct {
	p    *Replay
	out  chan jsonrpc.Message
	done chan struct{}
	once sync.Once

	mu   sync.Mutex
	ids  int64                             // the ids of replay's questions
	asks map[string]chan *jsonrpc.Response // the questions waiting for the client's answer
}

// Send takes what the client sends: a request is answered from the
// recording, an answer goes to the question it answers, a notification
// (initialized, cancelled) is the client's own and needs nothing.
func (l *replayLine) Send(msg jsonrpc.Message) error {
	switch m := msg.(type) {
	case *jsonrpc.Response:
		l.mu.Lock()
		ch := l.asks[transport.IDKey(m.ID)]
		delete(l.asks, transport.IDKey(m.ID))
		l.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	case *jsonrpc.Request:
		if m.IsCall() {
			return l.request(m)
		}
	}
	return nil
}

// request answers r: with its exchange's messages, played in order (by
// a goroutine of their own when the exchange asks the client, so the
// answer can come), or with the error that says why there is none.
func (l *replayLine) request(r *jsonrpc.Request) error {
	if r.Method == "ping" && len(l.p.byMethod["ping"]) == 0 {
		return l.put(&jsonrpc.Response{ID: r.ID, Result: json.RawMessage(`{}`)})
	}
	ex, rpcErr := l.p.find(r.Method, r.Params)
	if rpcErr != nil {
		return l.put(&jsonrpc.Response{ID: r.ID, Error: rpcErr})
	}
	token := rawmsg.View(r.Params).Get("_meta.progressToken").Raw
	for _, m := range ex.msgs {
		if m.kind == askMsg {
			go l.play(r.ID, token, ex)
			return nil
		}
	}
	return l.play(r.ID, token, ex)
}

// play sends ex's messages for the client's request id: its progress
// token in the recorded one's place (no progress when it gave none), each question with an id of
// replay's and its answer awaited, the answer with id. An exchange whose
// answer never came is not answered now either.
func (l *replayLine) play(id jsonrpc.ID, token string, ex *exchange) error {
	for _, m := range ex.msgs {
		switch {
		case m.kind == answerMsg && m.more != nil && m.more.omitted > 0:
			return l.put(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: fmt.Sprintf("%s left this answer out: %d bytes, over the --max-message it was recorded under", l.p.Label(), m.more.omitted)}})
		case m.kind == progressMsg && token == "" && ex.token != "":
			continue // the client asked for no progress
		case m.kind == askMsg:
			if rpcErr := l.ask(m); rpcErr != nil {
				return l.put(&jsonrpc.Response{ID: id, Error: rpcErr})
			}
			continue
		}
		raw, err := l.p.message(m)
		var msg jsonrpc.Message
		if err == nil {
			msg, err = transport.DecodeMessage(raw)
		}
		if err != nil {
			return l.put(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: fmt.Sprintf("%s holds an answer (line %d's) that cannot be read: %v", l.p.Label(), ex.line, err)}})
		}
		switch x := msg.(type) {
		case *jsonrpc.Response:
			x.ID = id
		case *jsonrpc.Request:
			if m.kind == progressMsg && ex.token != "" {
				x.Params = withProgressToken(x.Params, token)
			}
		}
		if err := l.put(msg); err != nil {
			return err
		}
	}
	return nil
}

// ask sends the server's recorded question m to the client and waits
// for its answer. An answer that is not the recorded one is the error
// of the request the question was for: what the server said next was
// said to that answer.
func (l *replayLine) ask(m played) *jsonrpc.Error {
	raw, err := l.p.message(m)
	var msg jsonrpc.Message
	if err == nil {
		msg, err = transport.DecodeMessage(raw)
	}
	q, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s holds a question that cannot be read", l.p.Label())}
	}
	l.mu.Lock()
	l.ids++
	q.ID, _ = jsonrpc.MakeID(float64(l.ids))
	ch := make(chan *jsonrpc.Response, 1)
	l.asks[transport.IDKey(q.ID)] = ch
	l.mu.Unlock()
	if l.put(q) != nil {
		return nil
	}
	var resp *jsonrpc.Response
	select {
	case resp = <-ch:
	case <-l.done:
		return nil
	}
	if m.more.asked == nil {
		return nil
	}
	data, _ := jsonrpc.EncodeMessage(resp)
	got, _, _ := matchForm("", answerOf(data))
	if d := differ(m.more.asked, got, "answer", nil); len(d) > 0 {
		l.p.mu.Lock()
		l.p.unmatched++
		l.p.mu.Unlock()
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s has no answer for this: the client's answer to %s is not the recorded one: it differs in %s",
			l.p.Label(), q.Method, d[0])}
	}
	return nil
}

// withProgressToken is params with its progressToken token (raw JSON),
// put in the recorded one's place: the rest stays as recorded.
func withProgressToken(params json.RawMessage, token string) json.RawMessage {
	v := rawmsg.View(params).Get("progressToken")
	in := rawmsg.Within(params, v)
	if in == nil {
		return params
	}
	i := v.Index
	out := make([]byte, 0, len(params)-len(in)+len(token))
	out = append(append(append(out, params[:i]...), token...), params[i+len(in):]...)
	return out
}

func (l *replayLine) put(m jsonrpc.Message) error {
	select {
	case l.out <- m:
		return nil
	case <-l.done:
		return io.ErrClosedPipe
	}
}

// Receive is the next message for the client.
func (l *replayLine) Receive() (jsonrpc.Message, error) {
	select {
	case msg := <-l.out:
		return msg, nil
	case <-l.done:
		return nil, io.EOF
	}
}

// Close ends the line.
func (l *replayLine) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}
