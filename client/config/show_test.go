package config

import (
	"encoding/json"
	"testing"
)

// 'mcpc config' shows each server by name, with its file, and no secret:
// a URL's query values and every env and header value are hidden, their
// names kept; the entry as loaded is not changed.
func TestShown(t *testing.T) {
	f := ParseFile("f.json", SourceUser, []byte(`{"mcpServers": {
		"web": {"url": "https://x.example/mcp?token=t1", "headers": {"Authorization": "Bearer abc"}},
		"bad": {"type": "websocket", "url": "https://y.example"},
		"cmd": {"command": "srv", "args": ["--v"], "env": {"API_KEY": "k1"}}}}`))
	if f.Err != nil {
		t.Fatal(f.Err)
	}
	c := &Config{Servers: map[string]*Entry{}}
	for _, n := range f.Names {
		c.Servers[n] = &Entry{Name: n, Server: f.Servers[n], File: f}
	}
	got, err := json.Marshal(c.Shown())
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"name":"bad","source":"f.json","server":{"type":"websocket","url":"https://y.example"},` +
		`"unusable":"f.json:3:11: server \"bad\": type \"websocket\" is not a transport mcpc speaks (use \"stdio\", \"http\", \"streamable-http\" or \"sse\")"},` +
		`{"name":"cmd","source":"f.json","server":{"command":"srv","args":["--v"],"env":{"API_KEY":"\u003credacted\u003e"}}},` +
		`{"name":"web","source":"f.json","server":{"url":"https://x.example/mcp?token=REDACTED","headers":{"Authorization":"\u003credacted\u003e"}}}]`
	if string(got) != want {
		t.Errorf("Shown =\n%s\nwant\n%s", got, want)
	}
	if f.Servers["cmd"].Env["API_KEY"] != "k1" || f.Servers["web"].Headers["Authorization"] != "Bearer abc" {
		t.Errorf("Redacted changed the entry: %+v %+v", f.Servers["cmd"], f.Servers["web"])
	}
	if got := (&Config{}).Shown(); got == nil || len(got) != 0 {
		t.Errorf("no servers: %#v, want an empty list (JSON [])", got)
	}
}
