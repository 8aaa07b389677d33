package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/internal/schemadiff"
)

// TestMockAnswers: each method the mock serves, answered by the line
// itself, in the order asked; anything else is method-not-found.
func TestMockAnswers(t *testing.T) {
	snap, err := schemadiff.Load([]byte(`{"mcpcSnapshot":1,"prompts":[{"name":"p","arguments":[{"name":"who","required":true}]}],"resourceTemplates":[],
		"tools":[{"name":"t","inputSchema":{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}},
		"outputSchema":{"type":"object","required":["ok"],"properties":{"ok":{"const":true}}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMock(context.Background(), "s.json", snap, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := m.Open(context.Background(), Legacy)
	defer l.Close()
	for _, c := range []struct{ method, params, want string }{
		{"initialize", `{"protocolVersion":"2025-06-18"}`, `{"capabilities":{"prompts":{},"tools":{}},"protocolVersion":"2025-06-18","serverInfo":{"name":"mcpc mock","version":""}}`},
		{"initialize", `{"protocolVersion":"1999-01-01"}`, `"protocolVersion":"2025-11-25"`},
		{"server/discover", `{}`, `"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]`},
		{"ping", `{}`, `{}`},
		{"resources/list", `{}`, `{"resources":[]}`},
		{"tools/call", `{"name":"t","arguments":{"n":1}}`, `{"content":[{"text":"{\"ok\":true}","type":"text"}],"structuredContent":{"ok":true}}`},
		{"tools/call", `{"name":"t","arguments":{"n":"x"}}`, `error -32602: arguments do not match the inputSchema of tool "t": argument "n": x has type "string", want "integer"`},
		{"tools/call", `{"name":"t","arguments":[1]}`, `error -32602: the arguments of tool "t" are not a JSON object`},
		{"tools/call", `{"name":"u"}`, `error -32602: unknown tool "u"`},
		{"prompts/get", `{"name":"p","arguments":{"who":"Ann"}}`, `"text":"p who=Ann"`},
		{"prompts/get", `{"name":"p"}`, `error -32602: prompt "p": argument "who" is required`},
		{"logging/setLevel", `{"level":"info"}`, `error -32601: method not found: mcpc mock does not serve logging/setLevel`},
	} {
		id, _ := jsonrpc.MakeID(c.method)
		if err := l.Send(&jsonrpc.Request{ID: id, Method: c.method, Params: json.RawMessage(c.params)}); err != nil {
			t.Fatal(err)
		}
		msg, err := l.Receive()
		if err != nil {
			t.Fatal(err)
		}
		r := msg.(*jsonrpc.Response)
		got := string(r.Result)
		if r.Error != nil {
			rpc := r.Error.(*jsonrpc.Error)
			got = fmt.Sprintf("error %d: %s", rpc.Code, rpc.Message)
		}
		if !strings.Contains(got, c.want) || r.ID != id {
			t.Errorf("%s %s = %s (id %v); want %s", c.method, c.params, got, r.ID, c.want)
		}
	}
	// A notification is not answered: the next message is the next answer.
	l.Send(&jsonrpc.Request{Method: "notifications/initialized"})
	id, _ := jsonrpc.MakeID("seven")
	l.Send(&jsonrpc.Request{ID: id, Method: "ping"})
	if msg, _ := l.Receive(); msg.(*jsonrpc.Response).ID != id {
		t.Errorf("after a notification: %v; want the ping's answer", msg)
	}
}
