package conn

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/internal/fail"
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

// A tool the entry's filter hides is refused naming the filter (exit 7)
// from the one list FindTool is given, before it is looked for; under
// NoFilter it is found as any other. Join drops what its predicate says.
func TestFindToolFiltered(t *testing.T) {
	f := &config.File{Path: "/u/config.json", Source: config.SourceUser}
	e := &config.Entry{Name: "x", File: f, Server: &config.Server{ExcludeTools: []string{"rm*"}}}
	tools := []*mcp.Tool{{Name: "ls"}, {Name: "rmdir"}}
	s := &Conn{Entry: e, Label: `server "x"`}
	if _, err := s.FindTool(tools, "ls"); err != nil {
		t.Fatal(err)
	}
	_, err := s.FindTool(tools, "rmdir")
	if want := `tool "rmdir" of server "x" is hidden by its excludeTools "rm*" in /u/config.json`; fail.CodeOf(err) != fail.Rejected || err.Error() != want {
		t.Errorf("FindTool(rmdir) = %v, want exit 7 %q", err, want)
	}
	s.opts.NoFilter = true
	if tool, err := s.FindTool(tools, "rmdir"); err != nil || tool.Name != "rmdir" {
		t.Errorf("FindTool(rmdir) under NoFilter = %v, %v", tool, err)
	}

	page := json.RawMessage(`{"tools":[{"name":"ls"},{"name":"rmdir"}],"x":1}`)
	got := listpages.Join([]json.RawMessage{page}, "tools", func(it gjson.Result) bool { return it.Get("name").String() == "rmdir" })
	if want := `{"tools":[{"name":"ls"}],"x":1}`; string(got) != want {
		t.Errorf("Join = %s, want %s", got, want)
	}
}
