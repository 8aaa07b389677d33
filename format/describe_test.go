package format

import "testing"

// The MCP Apps view a tool names is a line of its description, with the
// command that reads it as text; the tool is never rendered.
func TestDescribeToolUIResource(t *testing.T) {
	for _, tc := range []struct{ name, tool, want string }{
		{
			name: "nested key, with annotations",
			tool: `{"name":"weather","annotations":{"readOnlyHint":true},"_meta":{"ui":{"resourceUri":"ui://weather/view.html"}}}`,
			want: "weather\n\nAnnotations: read-only\nUI resource: ui://weather/view.html (shown, not rendered: mcpc read github ui://weather/view.html)\n\nArguments: none\n\nExample:\n  mcpc call github weather\n",
		},
		{
			name: "the deprecated flat key alone",
			tool: `{"name":"w","_meta":{"ui/resourceUri":"ui://w/old.html"}}`,
			want: "w\n\nUI resource: ui://w/old.html (shown, not rendered: mcpc read github ui://w/old.html)\n\nArguments: none\n\nExample:\n  mcpc call github w\n",
		},
		{
			// A host reads the flat key only when the nested one is absent.
			name: "both keys: the nested one is the view",
			tool: `{"name":"w","_meta":{"ui/resourceUri":"ui://w/old.html","ui":{"resourceUri":"ui://w/new.html"}}}`,
			want: "w\n\nUI resource: ui://w/new.html (shown, not rendered: mcpc read github ui://w/new.html)\n\nArguments: none\n\nExample:\n  mcpc call github w\n",
		},
		{
			name: "a URI a shell would split is quoted, escapes stripped",
			tool: `{"name":"w","_meta":{"ui":{"resourceUri":"ui://w/it's \u001b[31mred.html"}}}`,
			want: "w\n\nUI resource: ui://w/it's red.html (shown, not rendered: mcpc read github 'ui://w/it'\\''s red.html')\n\nArguments: none\n\nExample:\n  mcpc call github w\n",
		},
		{
			name: "no view: blank, not a string, or visibility only",
			tool: `{"name":"w","_meta":{"ui":{"resourceUri":" ","visibility":["model"]},"ui/resourceUri":7}}`,
			want: "w\n\nArguments: none\n\nExample:\n  mcpc call github w\n",
		},
	} {
		got, _ := write(t, tc.tool, Options{Mode: ModeText, Kind: KindTool, Example: Example{Server: "github"}})
		if got != tc.want {
			t.Errorf("%s: got\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
}
