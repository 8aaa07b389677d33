package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Mcp-Name carries a task id as SEP-2243 encodes header values.
func TestHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"task-1":          "task-1",
		"../a b":          "../a b",
		"ü":               "=?base64?w7w=?=",
		" x":              "=?base64?IHg=?=",
		"x\t":             "=?base64?eAk=?=",
		"=?base64?eA==?=": "=?base64?PT9iYXNlNjQ/ZUE9PT89?=",
		"":                "",
	} {
		if got := HeaderValue(in); got != want {
			t.Errorf("HeaderValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// ownAnswer is an HTTP answer of content type ct with body.
func ownAnswer(ct, body string) *http.Response {
	return &http.Response{Header: http.Header{"Content-Type": {ct}}, Body: io.NopCloser(strings.NewReader(body))}
}

// The answer to one of mcpc's own requests: on a stream, what the server
// sends first goes to Request in order, a response to another id is
// passed over, and the response to the request ends the reading.
func TestReadAnswerStream(t *testing.T) {
	id, _ := jsonrpc.MakeID("mcpc-1")
	var met []string
	o := AnswerOptions{Label: `server "s"`, MaxMessage: 1 << 10, Request: func(_ context.Context, r *jsonrpc.Request) error {
		met = append(met, r.Method)
		return nil
	}}
	stream := ": comment\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"elicitation/create\",\"params\":{}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":\"mcpc-2\",\"result\":{\"other\":true}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":\"mcpc-1\",\"result\":{\"ok\":true}}\n\n"
	res, err := ReadAnswer(context.Background(), ownAnswer("text/event-stream", stream), id, o)
	if err != nil || string(res) != `{"ok":true}` {
		t.Fatalf("ReadAnswer = %s, %v", res, err)
	}
	if strings.Join(met, ",") != "notifications/progress,elicitation/create" {
		t.Fatalf("requests met: %v", met)
	}

	// What Request returns ends the reading.
	stop := errors.New("stop")
	o.Request = func(context.Context, *jsonrpc.Request) error { return stop }
	if _, err := ReadAnswer(context.Background(), ownAnswer("text/event-stream", stream), id, o); err != stop {
		t.Fatalf("Request's error: %v", err)
	}

	// A JSON-RPC error is returned as it is.
	res, err = ReadAnswer(context.Background(), ownAnswer("application/json",
		`{"jsonrpc":"2.0","id":"mcpc-1","error":{"code":-32602,"message":"no such task"}}`), id, o)
	if rpc := (*jsonrpc.Error)(nil); !errors.As(err, &rpc) || rpc.Code != -32602 || res != nil {
		t.Fatalf("JSON-RPC error: %s, %v", res, err)
	}
}

// Answers that are not the response to mcpc's request are named, with
// the label given (scripts pin these words too).
func TestReadAnswerRefuses(t *testing.T) {
	id, _ := jsonrpc.MakeID("mcpc-1")
	for _, tc := range []struct {
		ct, body string
		code     fail.Code
		want     string
		wrapped  bool // the SDK's reason follows
	}{
		{"application/json", `{"a":1}`, fail.Protocol, `server "s" sent an answer that is not JSON-RPC`, true},
		{"application/json", `{"jsonrpc":"2.0","id":"mcpc-9","result":{}}`, fail.Protocol, `server "s" answered with a message that is not the response to mcpc's request`, false},
		{"text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":\"mcpc-9\",\"result\":{}}\n\n", fail.Protocol, `server "s" ended the stream without answering mcpc's request`, false},
		{"text/event-stream", "data: not json\n\n", fail.Protocol, `server "s" sent an event that is not JSON-RPC`, true},
	} {
		_, err := ReadAnswer(context.Background(), ownAnswer(tc.ct, tc.body), id, AnswerOptions{Label: `server "s"`, MaxMessage: 1 << 10})
		f := fail.As(err)
		if f != nil && tc.wrapped {
			f.Msg, _, _ = strings.Cut(f.Msg, ": ")
		}
		if f == nil || f.Code != tc.code || f.Msg != tc.want {
			t.Errorf("%s %q: %v, want %q", tc.ct, tc.body, err, tc.want)
		}
	}
}

// An event over the message limit is told to OverLimit (the session
// explains it) and ends the reading with ErrTooLarge.
func TestReadAnswerOverLimit(t *testing.T) {
	id, _ := jsonrpc.MakeID("mcpc-1")
	var told error
	o := AnswerOptions{Label: `server "s"`, MaxMessage: 16, OverLimit: func(err error) { told = err }}
	big := "data: {\"jsonrpc\":\"2.0\",\"id\":\"mcpc-1\",\"result\":{\"x\":\"" + strings.Repeat("x", 64) + "\"}}\n\n"
	if _, err := ReadAnswer(context.Background(), ownAnswer("text/event-stream", big), id, o); err != ErrTooLarge || told != ErrTooLarge {
		t.Fatalf("ReadAnswer: %v, OverLimit told %v", err, told)
	}
}
