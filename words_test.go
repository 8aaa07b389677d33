package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The word "session" means a held server (mcpc session start) and
// nothing else; docs/design.md's glossary has the words for the other
// concepts. These phrases used it for another, each with the words to use.
var wrongWords = []struct{ re, say string }{
	{`(?i)\bMCP\s+sessions?\b`, `an MCP connection is a "connection"`},
	{`(?i)\bsessions?[\s_-]*ids?\b`, `the id of an HTTP session is "Mcp-Session-Id"`},
	{`(?i)\b20\d\d(?:-\d\d-\d\d)?\s+sessions?\b`, `what a 2025 server keeps is an "HTTP session"`},
	{`(?i)\bSDK(?:'s)?\s+sessions?\b`, `the SDK's side of it is the "connection"`},
	{`(?i)\bsessions?[\s-]+level\b`, `what one connection keeps is "the connection's"`},
	{`(?i)\b(?:open|opens|opened|opening|close|closes|closed|closing|initiali[sz]e[sd]?|initiali[sz]ing)\s+(?:(?:the|a|its|one|this|that)\s+)?sessions?\b`,
		`a connection is opened and closed, an HTTP session initialized; a session is started and stopped`},
	{`(?i)\bsessions?\s+(?:is\s+|was\s+)?(?:opened|closed|initiali[sz]ed)\b`,
		`a connection is opened and closed, an HTTP session initialized; a session is started and stopped`},
	{`(?i)\bknows?\s+(?:(?:the|its|a)\s+)?sessions?\b`, `what a server knows is its "HTTP session" (Mcp-Session-Id)`},
	{`(?i)\bsessions?\s+(?:that\s+)?the\s+server\s+(?:no\s+longer\s+)?knows\b`, `what a server knows is its "HTTP session" (Mcp-Session-Id)`},
	{`(?i)\bkeeps?\s+per\s+sessions?\b`, `what a server keeps is per "HTTP session"`},
	{`(?i)\bremembered\s+sessions?\b`, `a task record remembers an "HTTP session"`},
	{`(?i)\bsessions?\b[^.]{0,30}\bDELETE\b|\bDELETE\b[^.]{0,30}\bsessions?\b`, `DELETE ends an "HTTP session"; a session is stopped`},
	{`\b(?:client\.Session|Session\.\w+|the\s+Session)\b`, `the connection's type is "Conn"`},
}

// rightWords are the uses of "session" that are right wherever they are:
// masked before wrongWords look.
var rightWords = regexp.MustCompile(`(?i)Mcp-Session-Id|\bHTTP\s+sessions?\b|\bD-Bus\s+session\s+bus\b|DBUS_SESSION_BUS_ADDRESS|@session\b`)

// wordProblems are the places text uses a phrase of wrongWords, as
// "line N: phrase: say"; a phrase in double quotes (the glossary naming
// it) is a mention, not a use.
func wordProblems(text string) []string {
	masked := rightWords.ReplaceAllStringFunc(text, func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '\n' {
				return r
			}
			return 'x'
		}, s)
	})
	type problem struct {
		line int
		text string
	}
	var found []problem
	for _, w := range wrongWords {
		for _, m := range regexp.MustCompile(w.re).FindAllStringIndex(masked, -1) {
			if m[0] > 0 && m[1] < len(text) && text[m[0]-1] == '"' && text[m[1]] == '"' {
				continue
			}
			line := strings.Count(text[:m[0]], "\n") + 1
			phrase := strings.Join(strings.Fields(text[m[0]:m[1]]), " ")
			found = append(found, problem{line, fmt.Sprintf("line %d: %q: %s", line, phrase, w.say)})
		}
	}
	slices.SortStableFunc(found, func(a, b problem) int { return a.line - b.line })
	var problems []string
	for _, p := range found {
		problems = append(problems, p.text)
	}
	return problems
}

// roffText is the man page's text with its font changes and escaped
// hyphens undone, lines kept.
func roffText(s string) string {
	s = regexp.MustCompile(`\\f(?:[BIPR]|\(CW|\[[A-Z]*\])`).ReplaceAllString(s, "")
	return strings.ReplaceAll(s, `\-`, "-")
}

// Every text a user or a newcomer reads (README, docs, the help topics,
// the man page, which holds every command's help) says "session" only of
// a held server.
func TestOneWordPerConcept(t *testing.T) {
	var files []string
	for _, g := range []string{"README.md", "docs/*.md", "internal/helptext/topics/*.txt", "man/sections.md", "man/mcpc.1"} {
		m, err := filepath.Glob(g)
		if err != nil || len(m) == 0 {
			t.Fatalf("no %s: %v", g, err)
		}
		files = append(files, m...)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if strings.HasSuffix(f, ".1") {
			text = roffText(text)
		}
		for _, p := range wordProblems(text) {
			t.Errorf("%s %s", f, p)
		}
	}
}

// Each rule refuses what it names and leaves alone the right uses around
// it.
func TestWordProblemsPinned(t *testing.T) {
	wrong := map[string]string{
		"One MCP session per invocation.":                   `line 1: "MCP session": an MCP connection is a "connection"`,
		"the holder's\nsession id":                          `line 2: "session id": the id of an HTTP session is "Mcp-Session-Id"`,
		"a kept 2025-11-25 session is settled":              `line 1: "2025-11-25 session": what a 2025 server keeps is an "HTTP session"`,
		"before its SDK session sees it":                    `line 1: "SDK session": the SDK's side of it is the "connection"`,
		"Nothing is kept at session level":                  `line 1: "session level": what one connection keeps is "the connection's"`,
		"mcpc closes the\nsession, reconnects":              `line 1: "closes the session": a connection is opened and closed, an HTTP session initialized; a session is started and stopped`,
		"the session was opened first":                      `line 1: "session was opened": a connection is opened and closed, an HTTP session initialized; a session is started and stopped`,
		"when the server no longer knows the session (404)": `line 1: "knows the session": what a server knows is its "HTTP session" (Mcp-Session-Id)`,
		"6. A session the server no longer knows.":          `line 1: "session the server no longer knows": what a server knows is its "HTTP session" (Mcp-Session-Id)`,
		"what the server keeps per session survives":        `line 1: "keeps per session": what a server keeps is per "HTTP session"`,
		"tasks/list of the remembered sessions":             `line 1: "remembered sessions": a task record remembers an "HTTP session"`,
		"mcpc ends the session (DELETE)":                    `line 1: "session (DELETE": DELETE ends an "HTTP session"; a session is stopped`,
		"the one explainer (`Session.explain`)":             `line 1: "Session.explain": the connection's type is "Conn"`,
	}
	for text, want := range wrong {
		if got := wordProblems(text); len(got) != 1 || got[0] != want {
			t.Errorf("wordProblems(%q) = %q, want %q", text, got, want)
		}
	}
	right := []string{
		"A session holds one server; 'mcpc session start' starts it, session stop stops it.",
		"--batch needs no session. A session's holder leaves none: the session ended.",
		"keeps its one Mcp-Session-Id; what the server keeps per HTTP session survives",
		"mcpc ends the HTTP session (DELETE); a kept 2025-11-25 HTTP session; the remembered HTTP sessions",
		"over the D-Bus session bus, or DBUS_SESSION_BUS_ADDRESS; @apify/mcpc's @session",
		`never "session" or "MCP session"; never a bare "session id"`,
		"end the session after DURATION without a request; an idle session; session idle",
		"Sessions hold stdio servers. Session start, list and stop. A session of its entry.",
	}
	for _, text := range right {
		if got := wordProblems(text); len(got) > 0 {
			t.Errorf("wordProblems(%q) = %q, want none", text, got)
		}
	}
}
