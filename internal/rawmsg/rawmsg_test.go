package rawmsg

import (
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestProgress(t *testing.T) {
	for _, c := range []struct {
		params string
		want   *mcp.ProgressNotificationParams
	}{
		{`{"progressToken":"t","progress":2,"total":5,"message":"two"}`, &mcp.ProgressNotificationParams{ProgressToken: "t", Progress: 2, Total: 5, Message: "two"}},
		{`{"progressToken":7,"progress":0.5}`, &mcp.ProgressNotificationParams{ProgressToken: float64(7), Progress: 0.5}},
		// Not well formed: the SDK is left to say so.
		{`{"progressToken":"t","progress":"2"}`, nil},
		{`{"progressToken":"t","progress":1,"message":3}`, nil},
		{`{"progress":1}`, nil},
	} {
		got, ok := Progress([]byte(c.params))
		if ok != (c.want != nil) || ok && !reflect.DeepEqual(got, c.want) {
			t.Errorf("Progress(%s) = %+v, %v; want %+v", c.params, got, ok, c.want)
		}
	}
}

func TestNotification(t *testing.T) {
	for _, c := range []struct {
		line, params string
	}{
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"a":1}}`, `{"a":1}`},
		{`{"params": {"b":[1]} ,"method":"m","jsonrpc":"2.0"}`, `{"b":[1]}`},
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`, ""},
		{`{"jsonrpc":"2.0","method":"m","params":[1]}`, ""},
		{`{"jsonrpc":"2.0","method":"m","params":{},"x":1}`, ""},
	} {
		p, ok := Parse([]byte(c.line)).Notification([]byte(c.line))
		if ok != (c.params != "") || string(p) != c.params {
			t.Errorf("Notification(%s) = %s, %v; want %s", c.line, p, ok, c.params)
		}
	}
}
