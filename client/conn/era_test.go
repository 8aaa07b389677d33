package conn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// The era is decided from the pin, else the remembered verdict, else a
// probe; only a decision that relies on what was remembered can be stale.
func TestNewEra(t *testing.T) {
	disc := json.RawMessage(`{"supportedVersions":["2026-07-28"]}`)
	modern := &state.EraRecord{Version: modernVersion, Verdict: state.VerdictProbe, Discover: disc}
	legacy := &state.EraRecord{Version: legacyVersion, Verdict: state.VerdictInitialize}
	for _, tc := range []struct {
		name       string
		pin        string
		rec        *state.EraRecord
		version    string
		source     string
		replays    bool
		remembered bool
		trace      string
	}{
		{"nothing known", "", nil, "", "probe", false, false, "auto (probe with server/discover, bound 10s) from probe"},
		{"remembered modern", "", modern, modernVersion, "memo", true, true, "2026-07-28 from memo"},
		{"remembered legacy", "", legacy, legacyVersion, "memo", false, true, "2025-11-25 from memo"},
		{"modern pin, met before", modernVersion, modern, modernVersion, "pin", true, true, "2026-07-28 from pin"},
		{"modern pin, met as legacy", modernVersion, legacy, modernVersion, "pin", false, false, "2026-07-28 from pin"},
		{"legacy pin", legacyVersion, modern, legacyVersion, "pin", false, false, "2025-11-25 from pin"},
		{"modern pin, never met", modernVersion, nil, modernVersion, "pin", false, false, "2026-07-28 from pin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEra(tc.pin, tc.rec)
			if e.version != tc.version || e.source != tc.source || (e.discover != nil) != tc.replays || e.remembered() != tc.remembered {
				t.Errorf("newEra = %+v (remembered %v)", e, e.remembered())
			}
			if got := e.describe(true, DefaultProbeTimeout); got != tc.trace {
				t.Errorf("describe = %q, want %q", got, tc.trace)
			}
			if f := e.afresh(); f.remembered() || f.rec != nil || f.pin != tc.pin {
				t.Errorf("afresh = %+v", f)
			}
		})
	}
	if got := newEra("", nil).describe(false, time.Second); got != "auto (probe with server/discover) from probe" {
		t.Errorf("describe over HTTP = %q", got)
	}
}

// A server remembered to die is not probed again when it dies again; a
// server remembered to speak an era is.
func TestEraDiedAgain(t *testing.T) {
	exited := &fail.Error{Code: fail.ServerExited, Msg: "exited"}
	for _, tc := range []struct {
		verdict   string
		diedAgain bool
	}{
		{state.VerdictDiedOnProbe, true},
		{state.VerdictDiedAtStart, true},
		{state.VerdictInitialize, false},
	} {
		e := newEra("", &state.EraRecord{Version: legacyVersion, Verdict: tc.verdict})
		if got := e.diedAgain(exited); got != tc.diedAgain {
			t.Errorf("%s: diedAgain = %v", tc.verdict, got)
		}
		if e.diedAgain(&fail.Error{Code: fail.Timeout}) {
			t.Errorf("%s: a timeout counted as a death", tc.verdict)
		}
		// Under a pin the remembered death is not relied on.
		if newEra(legacyVersion, e.rec).diedAgain(exited) {
			t.Errorf("%s: diedAgain under a pin", tc.verdict)
		}
	}
	if newEra("", nil).diedAgain(exited) {
		t.Error("diedAgain without a remembered verdict")
	}
}

// What a successful connection teaches the memo.
func TestEraLearned(t *testing.T) {
	dead := &state.EraRecord{Version: legacyVersion, Verdict: state.VerdictDiedAtStart}
	disc := &state.EraRecord{Version: modernVersion, Verdict: state.VerdictProbe, Discover: json.RawMessage(`{}`)}
	for _, tc := range []struct {
		name       string
		era        era
		negotiated string
		verdict    string
		forget     bool
	}{
		{"probe, modern", newEra("", nil), modernVersion, state.VerdictProbe, false},
		{"probe, legacy", newEra("", nil), legacyVersion, state.VerdictInitialize, false},
		{"modern pin, discover asked", newEra(modernVersion, nil), modernVersion, state.VerdictProbe, false},
		{"modern pin, discover replayed", newEra(modernVersion, disc), modernVersion, "", false},
		{"legacy pin", newEra(legacyVersion, nil), legacyVersion, "", false},
		{"remembered", newEra("", disc), modernVersion, "", false},
		{"remembered death, answering", newEra("", dead), legacyVersion, "", true},
		{"remembered death, modern pin", newEra(modernVersion, dead), modernVersion, state.VerdictProbe, false},
	} {
		verdict, forget := tc.era.learned(tc.negotiated)
		if verdict != tc.verdict || forget != tc.forget {
			t.Errorf("%s: learned = %q, %v; want %q, %v", tc.name, verdict, forget, tc.verdict, tc.forget)
		}
	}
}

// A failure of a remembered decision is stale evidence only while the
// invocation runs.
func TestEraStale(t *testing.T) {
	exited := &fail.Error{Code: fail.ServerExited, Msg: "exited"}
	remembered := newEra("", &state.EraRecord{Version: legacyVersion, Verdict: state.VerdictInitialize})
	if !remembered.stale(context.Background(), exited) {
		t.Error("a remembered era whose server exited is not stale")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if remembered.stale(ctx, exited) {
		t.Error("stale after the invocation ended")
	}
	if newEra("", nil).stale(context.Background(), exited) {
		t.Error("a probe is stale")
	}
}

// Whether a failure may come from the wrong era is read from its own
// evidence: a sign-in page or a proxy answering is not one, whatever exit
// code explains it.
func TestEraSuspect(t *testing.T) {
	status := func(code int) error {
		return &fail.Error{Code: fail.HTTPStatus, Err: transport.Answered(code, "", nil)}
	}
	rpc := func(code int64) *jsonrpc.Error { return &jsonrpc.Error{Code: code, Message: "no"} }
	rpcBody := func(code int64) []byte {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"error":{"code":%d,"message":"no"}}`, code))
	}
	// The SDK's transport error around the answer's evidence.
	bySDK := func(he *transport.HTTPError) error {
		return &fail.Error{Code: fail.Protocol, Err: fmt.Errorf("%w: %w", rpc(codeRejectedByTransport), he)}
	}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"a sign-in page", bySDK(transport.Answered(200, "text/html", []byte("<!DOCTYPE html>"))), false},
		{"an empty 200", bySDK(transport.Answered(200, "application/json", nil)), false},
		{"JSON that is not JSON-RPC", bySDK(transport.Answered(200, "application/json", []byte(`{"a":1}`))), false},
		{"400 to the handshake", status(400), true},
		{"404 to the handshake", status(404), true},
		{"405 to the handshake", status(405), true},
		{"500", status(500), false},
		{"503", status(503), false},
		{"429", status(429), false},
		{"401", &fail.Error{Code: fail.AuthRequired, Err: transport.Answered(401, "", nil)}, false},
		{"-32601 in a 404", &fail.Error{Code: fail.Rejected, Err: transport.Answered(404, "application/json", rpcBody(jsonrpc.CodeMethodNotFound))}, true},
		{"-32022 in a 400", &fail.Error{Code: fail.Protocol, Err: transport.Answered(400, "application/json", rpcBody(codeUnsupportedVersion))}, true},
		{"-32020 in a 400", &fail.Error{Code: fail.Rejected, Err: transport.Answered(400, "application/json", rpcBody(codeHeaderMismatch))}, true},
		{"-32602 in a 400", &fail.Error{Code: fail.Rejected, Err: transport.Answered(400, "application/json", rpcBody(jsonrpc.CodeInvalidParams))}, false},
		{"-32600 on stdio", &fail.Error{Code: fail.Rejected, Err: rpc(jsonrpc.CodeInvalidRequest)}, true},
		{"-32601 on stdio", &fail.Error{Code: fail.Rejected, Err: rpc(jsonrpc.CodeMethodNotFound)}, true},
		{"-32603 on stdio", &fail.Error{Code: fail.Rejected, Err: rpc(jsonrpc.CodeInternalError)}, false},
		{"the SDK's lost session", &fail.Error{Code: fail.HTTPStatus, Err: fmt.Errorf("x: %w", mcp.ErrSessionMissing)}, true},
		{"a stdio server exited", &fail.Error{Code: fail.ServerExited, Msg: "exited"}, true},
		{"a stdio server wrote garbage", &fail.Error{Code: fail.Protocol, Err: errors.New("the server wrote a line that is not JSON")}, false},
		{"a message over the limit", &fail.Error{Code: fail.Protocol, Err: transport.ErrTooLarge}, false},
		{"a timeout", &fail.Error{Code: fail.Timeout, Err: context.DeadlineExceeded}, false},
	} {
		if got := eraSuspect(tc.err); got != tc.want {
			t.Errorf("%s: eraSuspect = %v, want %v", tc.name, got, tc.want)
		}
	}
}
