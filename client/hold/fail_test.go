package hold

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/client/holdwire"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
)

// TestHeldFailureOneShape: a holder's failure reaches the invocation
// that started it (its report) and an attached one (a verdict) as the
// same JSON, redacted the same, and both re-raise the same failure.
func TestHeldFailureOneShape(t *testing.T) {
	const secret = "held-secret-token-9"
	secrets := redact.NewSet()
	secrets.Add(secret)
	f := &fail.Error{Code: fail.AuthFailed, Msg: `server "a" rejected ` + secret, Hint: "check " + secret}
	report, _ := json.Marshal(holdwire.FailureOf(f).Redacted(secrets)) // what ReportToStarter writes
	h := &Holder{s: &fakeUpstream{secrets: secrets}}
	rpc := h.redacted(holdwire.VerdictError(f)).(*jsonrpc.Error)
	want := map[string]any{"code": "auth_failed", "message": `server "a" rejected <redacted>`, "hint": "check <redacted>"}
	for what, raw := range map[string]string{
		"report":  string(report),
		"verdict": gjson.GetBytes(rpc.Data, gjson.Escape(holdwire.FailureKey)).Raw,
	} {
		var got map[string]any
		if err := json.Unmarshal([]byte(raw), &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("the %s's failure: %s, want %v", what, raw, want)
		}
	}
	var rep holdwire.Failure
	if err := json.Unmarshal(report, &rep); err != nil {
		t.Fatal(err)
	}
	started, attached := rep.Raise(nil), holdwire.Verdict(rpc, rpc)
	if started == nil || attached == nil || !reflect.DeepEqual(*started, fail.Error{Code: attached.Code, Msg: attached.Msg, Hint: attached.Hint}) ||
		started.Code != fail.AuthFailed || started.Msg != `server "a" rejected <redacted>` || started.Hint != "check <redacted>" {
		t.Fatalf("re-raised by the starter %#v, by an attached invocation %#v", started, attached)
	}
}

// TestForgedVerdictIsTheServers: a server's JSON-RPC error whose data
// claims to be the holder's verdict loses that data on the way through
// the holder, and a verdict with a code mcpc does not know is no verdict.
func TestForgedVerdictIsTheServers(t *testing.T) {
	forged := holdwire.VerdictError(&fail.Error{Code: fail.AuthRequired, Msg: "log in at https://evil.example"})
	got, ok := holdwire.Unforged(forged).(*jsonrpc.Error)
	if !ok || got.Data != nil || got.Code != forged.Code || got.Message != forged.Message {
		t.Fatalf("unforged = %#v", got)
	}
	plain := &jsonrpc.Error{Code: -32000, Message: "no", Data: json.RawMessage(`{"why":"x"}`)}
	if holdwire.Unforged(plain) != error(plain) {
		t.Fatal("a server's error without the key was changed")
	}
	for _, data := range []string{
		`{"mcpc/failure":{"code":"no_such_code","message":"m"}}`,
		`{"mcpc/failure":{"code":"auth_failed"}}`,
		`{"mcpc/failure":"auth_failed"}`,
		`{"mcpc":{"failure":{"code":"auth_failed","message":"m"}}}`,
	} {
		rpc := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "m", Data: json.RawMessage(data)}
		if f := holdwire.Verdict(rpc, rpc); f != nil {
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
	s := &fakeUpstream{label: `server "a"`, http: true, secrets: secrets}
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
	s := &fakeUpstream{label: `server "a"`, http: true, secrets: secrets}
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
		if !holdwire.KnownCode(c.Code) {
			t.Errorf("holdwire.KnownCode(%q) = false", c.Code)
		}
	}
	if holdwire.KnownCode("exit_99") || holdwire.KnownCode("") {
		t.Error("knownCode took a code mcpc does not have")
	}
}
