package transport

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// HeaderValue encodes a routing header's value as SEP-2243 asks: one with
// control or non-ASCII characters or blanks at either end, or one that
// looks encoded already, is sent as =?base64?…?=. A task id is the
// server's and may be any string.
func HeaderValue(s string) string {
	plain := !strings.HasPrefix(s, "=?base64?") || !strings.HasSuffix(s, "?=")
	if plain && s != "" {
		plain = s[0] != ' ' && s[0] != '\t' && s[len(s)-1] != ' ' && s[len(s)-1] != '\t'
	}
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] <= 0x7e
	}
	if plain {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// AnswerOptions say how to read the answer to one of mcpc's own requests
// (sent through OwnClient, beside the SDK).
type AnswerOptions struct {
	Label      string // how messages name the server
	MaxMessage int    // bytes of data in one event
	// Request handles what the server sends on the stream before its
	// answer: a request (answered by the caller, as the SDK would) or a
	// notification (no id). Its error ends the reading.
	Request func(context.Context, *jsonrpc.Request) error
	// OverLimit is told of an event over the size or depth limit, which
	// the session explains.
	OverLimit func(error)
}

// ReadAnswer returns the result of request id from resp, which OwnClient
// let through: a JSON body, or an event stream that may first carry the
// server's own requests (an elicitation asked under a task), which go to
// o.Request on the way. A JSON-RPC error is returned as the
// *jsonrpc.Error it is.
func ReadAnswer(ctx context.Context, resp *http.Response, id jsonrpc.ID, o AnswerOptions) (json.RawMessage, error) {
	// OwnClient let through only the two answers a request may have, and
	// read a JSON body within the limit already.
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "application/json" {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		return answerOf(body, id, o.Label)
	}
	return readStream(ctx, resp.Body, id, o)
}

// answerOf reads the response to request id from a JSON body.
func answerOf(body []byte, id jsonrpc.ID, label string) (json.RawMessage, error) {
	msg, err := DecodeMessage(body)
	if err != nil {
		return nil, fail.Wrap(fail.Protocol, err, "", "%s sent an answer that is not JSON-RPC", label)
	}
	r, ok := msg.(*jsonrpc.Response)
	if !ok || IDKey(r.ID) != IDKey(id) {
		return nil, fail.New(fail.Protocol, "", "%s answered with a message that is not the response to mcpc's request", label)
	}
	if r.Error != nil {
		return nil, r.Error
	}
	return r.Result, nil
}

// readStream reads an event stream until the response to request id,
// handing the server's requests and notifications to o.Request on the way.
func readStream(ctx context.Context, body io.Reader, id jsonrpc.ID, o AnswerOptions) (json.RawMessage, error) {
	events := NewEventReader(body, o.MaxMessage)
	for {
		ev, err := events.Next()
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return nil, context.Cause(ctx)
			case err == io.EOF:
				return nil, fail.New(fail.Protocol, "", "%s ended the stream without answering mcpc's request", o.Label)
			case err == ErrTooLarge || err == ErrTooDeep:
				o.OverLimit(err)
				return nil, err
			}
			return nil, fail.Wrap(fail.Connection, err, "", "the stream from %s broke", o.Label)
		}
		if len(ev.Data) == 0 {
			continue
		}
		msg, err := DecodeMessage(ev.Data)
		if err != nil {
			return nil, fail.Wrap(fail.Protocol, err, "", "%s sent an event that is not JSON-RPC", o.Label)
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			if IDKey(m.ID) == IDKey(id) {
				if m.Error != nil {
					return nil, m.Error
				}
				return m.Result, nil
			}
		case *jsonrpc.Request:
			if err := o.Request(ctx, m); err != nil {
				return nil, err
			}
		}
	}
}
