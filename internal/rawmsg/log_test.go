//lint:file-ignore SA1019 logging is deprecated in 2026-07-28, yet 2025 servers log: mcpc shows the logs

package rawmsg

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Log keeps data as the server wrote it, a copy of its own; params not
// well formed (a level that is no string, data that is not JSON) are the
// SDK's to refuse.
func TestLog(t *testing.T) {
	for _, c := range []struct {
		params string
		want   *mcp.LoggingMessageParams
	}{
		{`{"level":"info","logger":"db","data":{"b":1,"a":[true]}}`, &mcp.LoggingMessageParams{Level: "info", Logger: "db", Data: json.RawMessage(`{"b":1,"a":[true]}`)}},
		{`{"data":"text","level":"debug"}`, &mcp.LoggingMessageParams{Level: "debug", Data: json.RawMessage(`"text"`)}},
		{`{"level":"warning"}`, &mcp.LoggingMessageParams{Level: "warning"}},
		{`{"level":"notice","data":null}`, &mcp.LoggingMessageParams{Level: "notice"}},
		{`{"level":3,"data":"x"}`, nil},
		{`{"level":"info","logger":false,"data":"x"}`, nil},
		{`{"level":"info","data":{"a":}}`, nil},
		{`{"data":"x"}`, nil},
	} {
		params := []byte(c.params)
		got, ok := Log(params)
		if ok != (c.want != nil) || ok && !reflect.DeepEqual(got, c.want) {
			t.Errorf("Log(%s) = %+v, %v; want %+v", c.params, got, ok, c.want)
		}
		if ok && got.Data != nil {
			clear(params) // the line buffer, reused
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Log(%s) kept bytes of the line buffer: %s", c.params, got.Data)
			}
		}
	}
}
