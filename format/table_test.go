package format

import (
	"strings"
	"testing"
)

func TestTableFitsTerminal(t *testing.T) {
	header := []string{"NAME", "ARGUMENTS", "DESCRIPTION"}
	rows := [][]string{
		{"echo", "message*", "Echoes back the input string, whatever it is, as a text block"},
		{"get-sum", "a*, b*", "Returns the sum of two numbers"},
	}
	got := table(header, rows, 40)
	want := "NAME     ARGUMENTS  DESCRIPTION\n" +
		"echo     message*   Echoes back the inp…\n" +
		"get-sum  a*, b*     Returns the sum of…\n"
	if got != want {
		t.Errorf("width 40:\n%s\nwant\n%s", got, want)
	}
	for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if n := len([]rune(line)); n > 40 {
			t.Errorf("line of %d runes: %q", n, line)
		}
	}
	// Piped: nothing is cut, whatever the length.
	if got := table(header, rows, 0); strings.Contains(got, "…") {
		t.Errorf("width 0 cut a cell:\n%s", got)
	}
	// Too narrow for every column at its minimum: columns stop at
	// minColumn rather than vanish.
	got = table([]string{"A", "B"}, [][]string{{"0123456789abc", "0123456789abc"}}, 5)
	if want := "A         B\n0123456…  0123456…\n"; got != want {
		t.Errorf("width 5: %q, want %q", got, want)
	}
}

func TestDescribeTool(t *testing.T) {
	tool := `{"name":"search","title":"Search issues","description":"Search the tracker.\nReturns at most 50 hits.",
		"annotations":{"readOnlyHint":true,"destructiveHint":false,"openWorldHint":true},
		"inputSchema":{"type":"object","properties":{
			"state":{"type":"string","enum":["open","closed"],"default":"open","description":"Issue state"},
			"labels":{"type":"array","items":{"type":"string"}},
			"q":{"type":"string","description":"Query text\nwith a second line"},
			"limit":{"type":["integer","null"],"default":20},
			"when":{"anyOf":[{"type":"string"},{"type":"number"}]}
		},"required":["q","state"]}}`
	got, _ := write(t, tool, Options{Mode: ModeText, Kind: KindTool, Example: Example{Server: "github"}})
	wantEnd := "\nExample:\n  mcpc call github search state=open q=Q\n"
	if !strings.HasSuffix(got, wantEnd) {
		t.Errorf("got\n%s\nwant it to end with\n%s", got, wantEnd)
	}
	for _, line := range []string{
		"search: Search issues\nSearch the tracker.\nReturns at most 50 hits.\n",
		"\nAnnotations: read-only, non-destructive, open-world\n",
		"\nARGUMENT  TYPE           REQUIRED  DEFAULT  VALUES       DESCRIPTION\n",
		"\nstate     string         yes       open     open|closed  Issue state\n",
		"\nq         string         yes       -        -            Query text\n",
		"\nlabels    string[]       no        -        -            -\n",
		"\nlimit     integer|null   no        20       -            -\n",
		"\nwhen      string|number  no        -        -            -\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("missing %q in\n%s", line, got)
		}
	}

	// A stdio server given after --, and a tool without arguments.
	got, _ = write(t, `{"name":"it's","inputSchema":{"type":"object"}}`, Options{Mode: ModeText, Kind: KindTool, Example: Example{Tail: "-- node s.js"}})
	if want := "it's\n\nArguments: none\n\nExample:\n  mcpc call 'it'\\''s' -- node s.js\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestDescribePromptAndTemplate(t *testing.T) {
	got, _ := write(t, `{"name":"greet","description":"Greet someone","arguments":[{"name":"name","required":true,"description":"Who"},{"name":"tone"}]}`,
		Options{Mode: ModeText, Kind: KindPrompt})
	want := "greet\nGreet someone\n\nARGUMENT  REQUIRED  DESCRIPTION\nname      yes       Who\ntone      no        -\n\nExample:\n  mcpc prompt SERVER greet name=NAME\n"
	if got != want {
		t.Errorf("prompt: got\n%s\nwant\n%s", got, want)
	}
	got, _ = write(t, `{"uriTemplate":"test://items/{id}{?fields}","name":"item","description":"An item","mimeType":"text/plain"}`,
		Options{Mode: ModeText, Kind: KindTemplate, Example: Example{Server: "--stdio testserver"}})
	want = "item\nAn item\n\nURI template: test://items/{id}{?fields}\nMIME type: text/plain\n\nExample:\n  mcpc read --stdio testserver test://items/ID\n"
	if got != want {
		t.Errorf("template: got\n%s\nwant\n%s", got, want)
	}
}

// Columns line up by display width, not rune count: a CJK character takes
// two columns, an emoji sequence two, a combining accent none.
func TestTableWideCharacters(t *testing.T) {
	header := []string{"NAME", "DESCRIPTION"}
	rows := [][]string{
		{"日本語", "three wide"},
		{"e\u0301te\u0301", "combining accents"},
		{"👩‍💻", "one emoji"},
	}
	got := table(header, rows, 0)
	want := "NAME    DESCRIPTION\n" +
		"日本語  three wide\n" +
		"e\u0301te\u0301     combining accents\n" +
		"👩‍💻      one emoji\n"
	if got != want {
		t.Errorf("piped:\n%s\nwant\n%s", got, want)
	}
	// Cut to a terminal: no line is wider than it, and a wide character
	// is never split.
	got = table([]string{"A", "B"}, [][]string{{"日本語の説明がとても長い", "x"}}, 12)
	if want := "A          B\n日本語の…  x\n"; got != want {
		t.Errorf("width 12: %q, want %q", got, want)
	}
}
