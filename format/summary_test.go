package format

import (
	"strings"
	"testing"
)

// What a server wrote reaches the summary stripped of escape sequences and
// folded onto its line; its instructions are shown bounded.
func TestServerSummaryText(t *testing.T) {
	s := ServerSummary{
		Name: "evil\x1b[2J", Version: "1\n2", Protocol: "2025-11-25",
		Transport:    "Streamable HTTP, https://example.com/mcp?token=REDACTED",
		Capabilities: []string{"resources (subscribe)", "prompts", "a/ext\x1b]0;t\x07", "x (experimental)"},
		Instructions: "  first \x1b[31mred\x1b[0m\r\n\tindented\n" + strings.Repeat("more\n", 30),
	}
	want := `Server: evil 1 2
Protocol: 2025-11-25
Transport: Streamable HTTP, https://example.com/mcp?token=REDACTED
Capabilities: resources (subscribe), prompts, a/ext, x (experimental)
Instructions:
  first red
  	indented
` + strings.Repeat("  more\n", maxInstructionLines-2) + "  … (cut short; --json prints them whole)\n"
	if got := s.Text(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	// One long line is cut within the byte bound, on a character.
	s = ServerSummary{Transport: "stdio", Instructions: strings.Repeat("é", maxInstructionBytes)}
	got := s.Text()
	_, text, _ := strings.Cut(got, "Instructions:\n  ")
	line, _, _ := strings.Cut(text, "\n")
	if len(line) > maxInstructionBytes || strings.ContainsRune(line, '\uFFFD') || !strings.HasSuffix(got, "… (cut short; --json prints them whole)\n") {
		t.Errorf("long instructions: %d bytes, %q…", len(line), got[:80])
	}
	// A line that fills the bound to its last byte, then another.
	s.Instructions = strings.Repeat("a", maxInstructionBytes) + "\nb"
	if got := s.Text(); !strings.HasSuffix(got, "a\n  … (cut short; --json prints them whole)\n") {
		t.Errorf("instructions at the bound: %q", got[len(got)-80:])
	}
	if got := s.Text(); !strings.HasPrefix(got, "Server: unnamed\nProtocol: \nTransport: stdio\nCapabilities: none\n") {
		t.Errorf("empty result: %q", got[:80])
	}
}
