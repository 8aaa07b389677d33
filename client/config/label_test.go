package config

import "testing"

// One rule names a server everywhere: a configured one by its name, a URL
// from the command line by the URL with its query values redacted.
func TestEntryNames(t *testing.T) {
	const u = "https://example.com/mcp?token=secret"
	for _, c := range []struct {
		e            *Entry
		shown, label string
	}{
		{&Entry{Name: "gh", Server: &Server{URL: u}, File: &File{Path: "c.json"}}, "gh", `server "gh"`},
		{&Entry{Name: u, Server: &Server{URL: u}}, "https://example.com/mcp?token=REDACTED", "server at https://example.com/mcp?token=REDACTED"},
		{&Entry{Name: "srv --flag", Server: &Server{Command: "srv", Args: []string{"--flag"}}}, "srv --flag", `server "srv --flag"`},
	} {
		if got := c.e.ShownName(); got != c.shown {
			t.Errorf("ShownName() = %q, want %q", got, c.shown)
		}
		if got := c.e.Label(); got != c.label {
			t.Errorf("Label() = %q, want %q", got, c.label)
		}
	}
}
