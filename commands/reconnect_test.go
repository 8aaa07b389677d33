package commands

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
)

// What a server wrote reaches the summary stripped of escape sequences and
// folded onto its line; its instructions are shown bounded.
func TestServerSummary(t *testing.T) {
	r := &mcp.InitializeResult{
		ServerInfo:      &mcp.Implementation{Name: "evil\x1b[2J", Version: "1\n2"},
		ProtocolVersion: "2025-11-25",
		Capabilities: &mcp.ServerCapabilities{
			Resources:    &mcp.ResourceCapabilities{Subscribe: true},
			Prompts:      &mcp.PromptCapabilities{},
			Completions:  &mcp.CompletionCapabilities{},
			Extensions:   map[string]any{"b/ext": map[string]any{}, client.TaskExtension: map[string]any{}, "a/ext\x1b]0;t\x07": nil},
			Experimental: map[string]any{"x": true},
		},
		Instructions: "  first \x1b[31mred\x1b[0m\r\n\tindented\n" + strings.Repeat("more\n", 30),
	}
	entry := &config.Entry{Server: &config.Server{URL: "https://example.com/mcp?token=secret"}}
	got := serverSummary(r, entry, false)
	want := `Server: evil 1 2
Protocol: 2025-11-25
Transport: Streamable HTTP, https://example.com/mcp?token=REDACTED
Capabilities: resources (subscribe), prompts, completions, tasks, a/ext, b/ext, x (experimental)
Instructions:
  first red
  	indented
` + strings.Repeat("  more\n", maxInstructionLines-2) + "  … (cut short; --json prints them whole)\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	// One long line is cut within the byte bound, on a character.
	r = &mcp.InitializeResult{Instructions: strings.Repeat("é", maxInstructionBytes)}
	got = serverSummary(r, &config.Entry{Server: &config.Server{}}, false)
	_, text, _ := strings.Cut(got, "Instructions:\n  ")
	line, _, _ := strings.Cut(text, "\n")
	if len(line) > maxInstructionBytes || strings.ContainsRune(line, '\uFFFD') || !strings.HasSuffix(got, "… (cut short; --json prints them whole)\n") {
		t.Errorf("long instructions: %d bytes, %q…", len(line), got[:80])
	}
	// A line that fills the bound to its last byte, then another.
	r.Instructions = strings.Repeat("a", maxInstructionBytes) + "\nb"
	if got := serverSummary(r, &config.Entry{Server: &config.Server{}}, false); !strings.HasSuffix(got, "a\n  … (cut short; --json prints them whole)\n") {
		t.Errorf("instructions at the bound: %q", got[len(got)-80:])
	}
	if !strings.HasPrefix(got, "Server: unnamed\nProtocol: \nTransport: stdio\nCapabilities: none\n") {
		t.Errorf("empty result: %q", got[:80])
	}
}
