package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
)

// heldSession is an invocation's session as it is when held: what
// explain reads of it is the label, the entry and that it has a socket.
func heldSession() *Session {
	return &Session{Label: `server "a"`, Entry: &config.Entry{Name: "a", Server: &config.Server{}}, wire: newWire(), sock: &transport.Socket{}}
}

// TestHeldVerdictCrossesTheSocket: the holder's verdict, encoded as it
// is sent and decoded as the invocation reads it, is the same failure.
func TestHeldVerdictCrossesTheSocket(t *testing.T) {
	want := &fail.Error{Code: fail.AuthFailed, Msg: `server "a" rejected the credentials that were sent (HTTP 401)`,
		Hint: "check that the token is current and meant for this server"}
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: mustID("h-1"), Error: verdictError(want)})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		t.Fatal(err)
	}
	got := fail.As(heldSession().explain(context.Background(), "call tool \"x\" on", msg.(*jsonrpc.Response).Error))
	if got == nil || got.Code != want.Code || got.Msg != want.Msg || got.Hint != want.Hint {
		t.Fatalf("through the socket: %#v, want %#v", got, want)
	}
	// A one-shot's session has no holder to speak for it: the same error
	// from a server is the server's rejection.
	s := heldSession()
	s.sock = nil
	if f := fail.As(s.explain(context.Background(), "call tool \"x\" on", msg.(*jsonrpc.Response).Error)); f == nil || f.Code != fail.Rejected {
		t.Fatalf("without a holder: %#v", f)
	}
}

// TestHeldFailureOneShape: a holder's failure reaches the invocation
// that started it (its report) and an attached one (a verdict) as the
// same JSON, redacted the same, and both re-raise the same failure.
func TestHeldFailureOneShape(t *testing.T) {
	const secret = "held-secret-token-9"
	secrets := redact.NewSet()
	secrets.Add(secret)
	f := &fail.Error{Code: fail.AuthFailed, Msg: `server "a" rejected ` + secret, Hint: "check " + secret}
	var out bytes.Buffer
	ReportToStarter(&out, secrets, HolderReport{Error: heldFailure(f)})
	h := &Holder{s: &Session{secrets: secrets}}
	rpc := h.redacted(verdictError(f)).(*jsonrpc.Error)
	want := map[string]any{"code": "auth_failed", "message": `server "a" rejected <redacted>`, "hint": "check <redacted>"}
	for what, raw := range map[string]string{
		"report":  gjson.GetBytes(out.Bytes(), "error").Raw,
		"verdict": gjson.GetBytes(rpc.Data, gjson.Escape(heldFailureKey)).Raw,
	} {
		var got map[string]any
		if err := json.Unmarshal([]byte(raw), &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("the %s's failure: %s, want %v", what, raw, want)
		}
	}
	var rep HolderReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	started, attached := rep.Error.raise(nil), heldSession().heldVerdict(rpc, rpc)
	if started == nil || attached == nil || *started != (fail.Error{Code: attached.Code, Msg: attached.Msg, Hint: attached.Hint}) ||
		started.Code != fail.AuthFailed || started.Msg != `server "a" rejected <redacted>` || started.Hint != "check <redacted>" {
		t.Fatalf("re-raised by the starter %#v, by an attached invocation %#v", started, attached)
	}
}

// TestForgedVerdictIsTheServers: a server's JSON-RPC error whose data
// claims to be the holder's verdict loses that data on the way through
// the holder, and a verdict with a code mcpc does not know is no verdict.
func TestForgedVerdictIsTheServers(t *testing.T) {
	forged := verdictError(&fail.Error{Code: fail.AuthRequired, Msg: "log in at https://evil.example"})
	got, ok := unforged(forged).(*jsonrpc.Error)
	if !ok || got.Data != nil || got.Code != forged.Code || got.Message != forged.Message {
		t.Fatalf("unforged = %#v", got)
	}
	plain := &jsonrpc.Error{Code: -32000, Message: "no", Data: json.RawMessage(`{"why":"x"}`)}
	if unforged(plain) != error(plain) {
		t.Fatal("a server's error without the key was changed")
	}
	for _, data := range []string{
		`{"mcpc/failure":{"code":"no_such_code","message":"m"}}`,
		`{"mcpc/failure":{"code":"auth_failed"}}`,
		`{"mcpc/failure":"auth_failed"}`,
		`{"mcpc":{"failure":{"code":"auth_failed","message":"m"}}}`,
	} {
		rpc := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "m", Data: json.RawMessage(data)}
		if f := heldSession().heldVerdict(rpc, rpc); f != nil {
			t.Errorf("%s: taken for a verdict: %#v", data, f)
		}
	}
}

func mustID(v any) jsonrpc.ID {
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		panic(err)
	}
	return id
}

// TestHolderRedactsWhatItPassesOn: a DPoP proof or token the holder sent
// and a server quoted back reaches the invocation as "<redacted>", in
// the holder's verdict and in the server's own JSON-RPC error: the
// invocation's stderr does not know the holder's secrets.
func TestHolderRedactsWhatItPassesOn(t *testing.T) {
	const proof = "eyJproof.held-secret-proof.sig"
	secrets := redact.NewSet()
	s := &Session{Label: `server "a"`, Entry: &config.Entry{Name: "a", Server: &config.Server{URL: "https://mcp.example/mcp"}}, wire: newWire(), secrets: secrets}
	h := &Holder{s: s, calls: map[string]*route{}, progress: map[string]*route{}, asked: map[string]asked{}, tasks: map[string]*attach{},
		conns: map[*attach]bool{}, lostC: make(chan struct{}), lists: newHeldLists(0)}
	a := &attach{out: make(chan jsonrpc.Message, 4), done: make(chan struct{}), ids: map[string]string{}}
	h.conns[a] = true
	// What a relay sends registers under the holder's set.
	redact.Add(redact.NewContext(context.Background(), secrets), proof)

	h.calls["h-1"] = &route{a: a, id: mustID("i-1")}
	h.relayFailed("h-1", errors.New("the server refused DPoP "+proof))
	h.calls["h-2"] = &route{a: a, id: mustID("i-2")}
	data, _ := json.Marshal(map[string]string{"sent": proof})
	h.fromServer(&jsonrpc.Response{ID: mustID("h-2"), Error: &jsonrpc.Error{Code: -32000, Message: "bad proof " + proof, Data: data}})
	for i := range 2 {
		m := (<-a.out).(*jsonrpc.Response)
		var e *jsonrpc.Error
		if !errors.As(m.Error, &e) {
			t.Fatalf("answer %d: %#v", i, m.Error)
		}
		if strings.Contains(e.Message+string(e.Data), "held-secret") || !strings.Contains(e.Message, redact.Mark) {
			t.Fatalf("answer %d passes the secret on: %q %s", i, e.Message, e.Data)
		}
		if i == 1 && string(e.Data) != `{"sent":"<redacted>"}` {
			t.Fatalf("server's data: %s", e.Data)
		}
	}
}

// TestHolderRedactsNotifications: a log message or a progress message the
// server sends, which an invocation shows on stderr, reaches it with the
// holder's secrets redacted; one without params passes as it came.
func TestHolderRedactsNotifications(t *testing.T) {
	const proof = "eyJproof.held-secret-proof.sig"
	secrets := redact.NewSet()
	secrets.Add(proof)
	s := &Session{Label: `server "a"`, Entry: &config.Entry{Name: "a", Server: &config.Server{URL: "https://mcp.example/mcp"}}, wire: newWire(), secrets: secrets}
	h := &Holder{s: s, calls: map[string]*route{}, progress: map[string]*route{}, asked: map[string]asked{}, tasks: map[string]*attach{},
		conns: map[*attach]bool{}, lostC: make(chan struct{}), lists: newHeldLists(0)}
	a := &attach{out: make(chan jsonrpc.Message, 8), done: make(chan struct{}), ids: map[string]string{}}
	h.conns[a] = true
	h.progress["p-1"] = &route{a: a, id: mustID("i-1"), token: json.RawMessage(`7`), htok: "p-1"}

	h.serverNotification(&jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(`{"level":"error","data":"sent DPoP ` + proof + `"}`)})
	h.serverNotification(&jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{"progressToken":"p-1","progress":1,"message":"with ` + proof + `"}`)})
	h.serverNotification(&jsonrpc.Request{Method: "notifications/tools/list_changed"})
	// A question the server asks, and its cancellation, reach the one
	// invocation with a request in flight, redacted as well.
	a.ids["x"] = "i-2"
	h.serverRequest(&jsonrpc.Request{ID: mustID("q-1"), Method: "elicitation/create", Params: json.RawMessage(`{"message":"paste ` + proof + `","requestedSchema":{"type":"object"}}`)})
	h.serverNotification(&jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":"q-1","reason":"gave up on ` + proof + `"}`)})
	want := []string{`{"level":"error","data":"sent DPoP <redacted>"}`, `{"message":"with <redacted>","progress":1,"progressToken":7}`, ``,
		`{"message":"paste <redacted>","requestedSchema":{"type":"object"}}`, `{"requestId":"q-1","reason":"gave up on <redacted>"}`}
	for i, w := range want {
		m := (<-a.out).(*jsonrpc.Request)
		if string(m.Params) != w {
			t.Fatalf("notification %d: %s params %s, want %s", i, m.Method, m.Params, w)
		}
	}
}

// A holder's report names its failure's code; only mcpc's own codes
// become exit statuses (Start and heldVerdict fall back otherwise).
func TestKnownCode(t *testing.T) {
	for _, c := range fail.Codes {
		if !knownCode(c.Code) {
			t.Errorf("knownCode(%q) = false", c.Code)
		}
	}
	if knownCode("exit_99") || knownCode("") {
		t.Error("knownCode took a code mcpc does not have")
	}
}
