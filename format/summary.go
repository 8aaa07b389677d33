package format

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Instructions can be long (a manual for the model); the summary shows
// their start, and --json all of them.
const (
	maxInstructionLines = 20
	maxInstructionBytes = 2048
)

// ServerSummary is what a handshake says about a server (its identity,
// protocol revision, capabilities and instructions, as the server wrote
// them) and how mcpc reached it.
type ServerSummary struct {
	Name, Version, Protocol string
	Transport               string // "stdio", "Streamable HTTP, URL", …: mcpc's own words
	Capabilities            []string
	Instructions            string
}

// Text is the summary one line each, then the instructions, bounded.
// Everything the server wrote is stripped of escape sequences and kept on
// its line.
func (s ServerSummary) Text() string {
	var b strings.Builder
	server := "unnamed"
	if s.Name != "" {
		server = strings.TrimSpace(s.Name + " " + s.Version)
	}
	fmt.Fprintf(&b, "Server: %s\n", textsafe.OneLine(server))
	fmt.Fprintf(&b, "Protocol: %s\n", textsafe.OneLine(s.Protocol))
	fmt.Fprintf(&b, "Transport: %s\n", s.Transport)
	caps := "none"
	if len(s.Capabilities) > 0 {
		words := make([]string, len(s.Capabilities))
		for i, c := range s.Capabilities {
			words[i] = textsafe.OneLine(c)
		}
		caps = strings.Join(words, ", ")
	}
	fmt.Fprintf(&b, "Capabilities: %s\n", caps)
	if text := strings.TrimSpace(textsafe.StripControl(s.Instructions)); text != "" {
		b.WriteString("Instructions:\n")
		lines := strings.Split(text, "\n")
		cut := len(lines) > maxInstructionLines
		lines = lines[:min(len(lines), maxInstructionLines)]
		size := 0
		for i, line := range lines {
			if size+len(line) > maxInstructionBytes {
				line = line[:max(maxInstructionBytes-size, 0)]
				for line != "" && !utf8.ValidString(line) {
					line = line[:len(line)-1] // not inside a character
				}
				lines, cut = lines[:i], true
				if line != "" {
					lines = append(lines, line)
				}
				break
			}
			size += len(line) + 1
		}
		for _, line := range lines {
			b.WriteString(strings.TrimRight("  "+line, " \t") + "\n")
		}
		if cut {
			b.WriteString("  … (cut short; --json prints them whole)\n")
		}
	}
	return b.String()
}
