package serve

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/transport"
)

// scriptedHolder serves a socket like a holder whose server answers each
// request with answer(method, params).
func scriptedHolder(t *testing.T, answer func(method string, params json.RawMessage) json.RawMessage) *Upstream {
	t.Helper()
	path := filepath.Join(t.TempDir(), "h.sock")
	ln, err := transport.ListenSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := transport.NewMessageReader(c, 1<<20)
				for {
					msgs, err := r.Read()
					if err != nil {
						return
					}
					for _, m := range msgs {
						if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
							data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: answer(req.Method, req.Params)})
							c.Write(append(data, '\n'))
						}
					}
				}
			}()
		}
	}()
	return &Upstream{Name: "x", Limit: 1 << 20, Session: path, SessionEra: Legacy}
}

// server answers as a server named name with one tool, one prompt and
// the resources uris would.
func server(name string, uris ...string) func(string, json.RawMessage) json.RawMessage {
	return func(method string, params json.RawMessage) json.RawMessage {
		var out any
		switch method {
		case "initialize":
			out = map[string]any{"protocolVersion": "2025-11-25", "serverInfo": map[string]string{"name": name},
				"capabilities": map[string]any{"tools": map[string]any{"listChanged": name == "a"}, name: map[string]any{}},
				"instructions": "use " + name}
		case "tools/list":
			out = map[string]any{"tools": []map[string]string{{"name": "t"}}}
		case "prompts/list":
			out = map[string]any{"prompts": []map[string]string{{"name": "p"}}}
		case "resources/list":
			var rs []map[string]string
			for _, u := range uris {
				rs = append(rs, map[string]string{"uri": u, "name": u})
			}
			out = map[string]any{"resources": rs}
		default:
			out = map[string]any{"server": name, "method": method, "params": json.RawMessage(params)}
		}
		b, _ := json.Marshal(out)
		return b
	}
}

func testFan(t *testing.T, log func(string)) Line {
	t.Helper()
	a := &Aggregate{Servers: []*Upstream{scriptedHolder(t, server("a", "file:///x", "file:///a")), scriptedHolder(t, server("b", "file:///x"))},
		Names: []string{"a", "b"}, Separator: "__", Version: "v9", Log: log}
	l, err := a.Open(context.Background(), Legacy)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// roundTrip sends a request on l and returns its answer's JSON.
func roundTrip(t *testing.T, l Line, id int, method, params string) string {
	t.Helper()
	rid, _ := jsonrpc.MakeID(float64(id))
	if err := l.Send(&jsonrpc.Request{ID: rid, Method: method, Params: json.RawMessage(params)}); err != nil {
		t.Fatal(err)
	}
	got := make(chan jsonrpc.Message, 1)
	go func() {
		m, _ := l.Receive()
		got <- m
	}()
	select {
	case m := <-got:
		data, _ := jsonrpc.EncodeMessage(m)
		return string(data)
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no answer", method)
		return ""
	}
}

// Several servers as one: the handshake is serve's, their capabilities'
// union and their instructions under their names; tools and prompts are
// SERVER__NAME and go to their server by it, renamed back; resources keep
// their URIs, the later of two equal ones under mcpc+resource://.
func TestAggregate(t *testing.T) {
	var notes []string
	l := testFan(t, func(msg string) { notes = append(notes, msg) })
	for _, c := range []struct{ method, params, want string }{
		{"initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"a":{},"b":{},"tools":{"listChanged":true}},"instructions":"a: use a\n\nb: use b","protocolVersion":"2025-11-25","serverInfo":{"name":"mcpc serve","version":"v9"}}}`},
		{"tools/list", `{}`, `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a__t"},{"name":"b__t"}]}}`},
		{"prompts/list", `{}`, `{"jsonrpc":"2.0","id":3,"result":{"prompts":[{"name":"a__p"},{"name":"b__p"}]}}`},
		{"resources/list", `{}`, `{"jsonrpc":"2.0","id":4,"result":{"resources":[{"name":"file:///x","uri":"file:///x"},{"name":"file:///a","uri":"file:///a"},{"name":"file:///x","uri":"mcpc+resource://b/file:///x"}]}}`},
		{"tools/call", `{"name":"b__t","arguments":{"q":1}}`, `{"jsonrpc":"2.0","id":5,"result":{"method":"tools/call","params":{"arguments":{"q":1},"name":"t"},"server":"b"}}`},
		{"prompts/get", `{"name":"a__p"}`, `{"jsonrpc":"2.0","id":6,"result":{"method":"prompts/get","params":{"name":"p"},"server":"a"}}`},
		{"resources/read", `{"uri":"mcpc+resource://b/file:///x"}`, `{"jsonrpc":"2.0","id":7,"result":{"method":"resources/read","params":{"uri":"file:///x"},"server":"b"}}`},
		{"resources/read", `{"uri":"file:///x"}`, `{"jsonrpc":"2.0","id":8,"result":{"method":"resources/read","params":{"uri":"file:///x"},"server":"a"}}`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"b__p"},"argument":{"name":"n","value":"v"}}`,
			`{"jsonrpc":"2.0","id":9,"result":{"method":"completion/complete","params":{"argument":{"name":"n","value":"v"},"ref":{"name":"p","type":"ref/prompt"}},"server":"b"}}`},
		{"tools/call", `{"name":"c__t"}`, `{"jsonrpc":"2.0","id":10,"error":{"code":-32602,"message":"unknown tool \"c__t\": served tools are named SERVER__NAME, SERVER one of a, b"}}`},
		{"resources/read", `{"uri":"file:///nowhere"}`, `{"jsonrpc":"2.0","id":11,"error":{"code":-32602,"message":"unknown resource \"file:///nowhere\": list the resources first, or name it mcpc+resource://SERVER/URI"}}`},
		{"ping", `{}`, `{"jsonrpc":"2.0","id":12,"result":{}}`},
	} {
		var w struct {
			ID int `json:"id"`
		}
		json.Unmarshal([]byte(c.want), &w)
		if got := roundTrip(t, l, w.ID, c.method, c.params); got != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.method, c.params, got, c.want)
		}
	}
	// The clash is named once, however often the list is read.
	roundTrip(t, l, 13, "resources/list", `{}`)
	want := []string{`servers "a" and "b" both list the resource file:///x (and maybe more): "b"'s are served as mcpc+resource://b/URI`}
	if !slices.Equal(notes, want) {
		t.Errorf("notes:\n got %q\nwant %q", notes, want)
	}
}

// Of two servers "a" and "a__b", a__b__t is a__b's tool t.
func TestAggregateLongestName(t *testing.T) {
	f := &fan{a: &Aggregate{Names: []string{"a", "a__b"}, Separator: "__"}}
	if i, rest, ok := f.named("a__b__t"); !ok || i != 1 || rest != "t" {
		t.Errorf("named(a__b__t) = %d %q %v", i, rest, ok)
	}
	if i, rest, ok := f.named("a__t"); !ok || i != 0 || rest != "t" {
		t.Errorf("named(a__t) = %d %q %v", i, rest, ok)
	}
}
