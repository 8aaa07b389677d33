package client

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/listpages"
)

// App-only is the MCP Apps rule (2026-01-26, "Visibility"): a host leaves
// out of the agent's tool list a tool whose _meta.ui.visibility lacks
// "model"; an absent visibility means ["model", "app"]. The decoded tool
// and the tool as sent must agree, since list and describe read one and
// call the other.
func TestAppOnly(t *testing.T) {
	for _, tc := range []struct {
		tool string
		want bool
	}{
		{`{"name":"t"}`, false},
		{`{"name":"t","_meta":{"ui":{"resourceUri":"ui://t/v.html"}}}`, false},
		{`{"name":"t","_meta":{"ui":{"visibility":null}}}`, false},
		{`{"name":"t","_meta":{"ui":{"visibility":["model"]}}}`, false},
		{`{"name":"t","_meta":{"ui":{"visibility":["app","model"]}}}`, false},
		{`{"name":"t","_meta":{"ui":{"visibility":["app"]}}}`, true},
		{`{"name":"t","_meta":{"ui":{"visibility":[]}}}`, true},
		// The flat deprecated key names a view only, never who may call.
		{`{"name":"t","_meta":{"ui/resourceUri":"ui://t/v.html","ui":{"visibility":["app"]}}}`, true},
	} {
		var tool mcp.Tool
		if err := json.Unmarshal([]byte(tc.tool), &tool); err != nil {
			t.Fatal(err)
		}
		if got := appOnly(&tool); got != tc.want {
			t.Errorf("appOnly(%s) = %v, want %v", tc.tool, got, tc.want)
		}
		if got := listpages.AppOnly(gjson.Parse(tc.tool)); got != tc.want {
			t.Errorf("listpages.AppOnly(%s) = %v, want %v", tc.tool, got, tc.want)
		}
	}
}
