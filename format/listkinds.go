package format

import "github.com/mcpc-dev/mcpc/internal/shellwords"

// listKinds are how text reads each list a server offers, named by its
// word (conn.ListKinds), and one item of it described; a resource is
// never described (mcpc read shows it).
var listKinds = map[string]struct{ list, item Kind }{
	"tools":     {KindToolList, KindTool},
	"resources": {KindResourceList, KindGeneric},
	"templates": {KindTemplateList, KindTemplate},
	"prompts":   {KindPromptList, KindPrompt},
}

// ListKind is the Kind of the list a word names (tools, resources,
// templates, prompts); KindGeneric for another word.
func ListKind(word string) Kind { return listKinds[word].list }

// ItemKind is the Kind of one item of the list a word names, described.
func ItemKind(word string) Kind { return listKinds[word].item }

// ExampleOf is how an example line names the server the way a command
// line did: by name or URL, by --stdio's command, or by the words after
// "--".
func ExampleOf(server, stdio string, argv []string) Example {
	switch {
	case stdio != "":
		return Example{Server: "--stdio " + shellwords.Quote(stdio)}
	case len(argv) > 0:
		return Example{Tail: "-- " + shellwords.Join(argv)}
	}
	return Example{Server: shellwords.Quote(server)}
}
