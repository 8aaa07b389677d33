package format

import (
	"github.com/mcpc-dev/mcpc/internal/listkind"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
)

// listView is how text shows a list kind: the Kind of the list and of
// one item of it described, the table's columns and an item's row.
type listView struct {
	list, item Kind
	header     []string
	row        func(*node) []string
}

// listViews are the list kinds of listkind.Kinds, by word: what text
// cannot take from the table (its columns). The member that holds the
// items and the note of an empty list come from the table (withLists).
// A resource is never described (mcpc read shows it).
var listViews = map[string]listView{
	"tools": {KindToolList, KindTool, []string{"NAME", "TITLE", "ARGUMENTS", "DESCRIPTION"}, toolRow},
	"resources": {KindResourceList, KindGeneric, []string{"URI", "NAME", "DESCRIPTION"}, func(r *node) []string {
		return []string{str(r, "uri"), str(r, "name"), summary(str(r, "description"))}
	}},
	"templates": {KindTemplateList, KindTemplate, []string{"URITEMPLATE", "NAME", "DESCRIPTION"}, func(r *node) []string {
		return []string{str(r, "uriTemplate"), str(r, "name"), summary(str(r, "description"))}
	}},
	"prompts": {KindPromptList, KindPrompt, []string{"NAME", "ARGUMENTS", "DESCRIPTION"}, func(p *node) []string {
		return []string{str(p, "name"), promptArguments(p), summary(str(p, "description"))}
	}},
}

// withLists is tables and a table for each list kind: its items under
// the kind's key, "server has no resource templates" when there are none.
func withLists(tables map[Kind]listTable) map[Kind]listTable {
	for _, k := range listkind.Kinds {
		if v, ok := listViews[k.Word]; ok {
			tables[v.list] = listTable{k.Key, "server has no " + k.Items, v.header, v.row}
		}
	}
	return tables
}

// ListKind is the Kind of the list a word names (tools, resources,
// templates, prompts); KindGeneric for another word.
func ListKind(word string) Kind { return listViews[word].list }

// ItemKind is the Kind of one item of the list a word names, described.
func ItemKind(word string) Kind { return listViews[word].item }

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
