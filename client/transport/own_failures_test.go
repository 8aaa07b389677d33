package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// A stream cut by something other than its end (a reset connection) is a
// connection failure that names the server, not a protocol one.
func TestReadAnswerStreamBroke(t *testing.T) {
	id, _ := jsonrpc.MakeID("mcpc-1")
	body := io.MultiReader(strings.NewReader("data: {\"jsonrpc\":"), iotest.ErrReader(syscall.ECONNRESET))
	resp := &http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(body)}
	_, err := ReadAnswer(context.Background(), resp, id, AnswerOptions{Label: `server "s"`, MaxMessage: 1 << 10})
	if f := fail.As(err); f == nil || f.Code != fail.Connection || f.Msg != `the stream from server "s" broke: `+syscall.ECONNRESET.Error() {
		t.Fatalf("ReadAnswer: %v (%s)", err, fail.CodeOf(err))
	}
}

// An answer to the server's question that the server refuses with an HTTP
// status (not a JSON-RPC error) is named as that refusal, with the status.
func TestAnswerRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusForbidden)
	}))
	t.Cleanup(srv.Close)
	id, _ := jsonrpc.MakeID(7)
	err := testTransport(t, srv).Answer(context.Background(), srv.URL, &jsonrpc.Response{ID: id, Result: []byte(`{}`)}, Own{}, `server "s"`)
	var he *HTTPError
	if f := fail.As(err); f == nil || f.Code != fail.HTTPStatus || f.Msg != `server "s" refused mcpc's answer to its question (HTTP 403)` || !errors.As(err, &he) {
		t.Fatalf("Answer: %v (%s)", err, fail.CodeOf(err))
	}
}
