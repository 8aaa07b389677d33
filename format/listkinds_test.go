package format

import (
	"slices"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/listkind"
)

func TestListKinds(t *testing.T) {
	if ListKind("templates") != KindTemplateList || ItemKind("prompts") != KindPrompt || ListKind("skills") != KindGeneric {
		t.Error("list kinds")
	}
}

// unrendered are the words of kinds that text shows as generic JSON: no
// view in listViews, so no table.
func unrendered(kinds []listkind.Kind) []string {
	var words []string
	for _, k := range kinds {
		if _, ok := listTables[ListKind(k.Word)]; !ok || ListKind(k.Word) == KindGeneric {
			words = append(words, k.Word)
		}
	}
	return words
}

// listkind.Kinds is the one table of the lists mcpc reads; text keys how
// each renders by the same words. A word added to the table without a
// view would print as generic JSON, and this fails. Each table reads the
// items under the kind's key and says the kind's words when it is empty.
func TestEveryListKindRenders(t *testing.T) {
	if words := unrendered(listkind.Kinds); words != nil {
		t.Errorf("list kinds %q have no view in format's listViews", words)
	}
	if words := unrendered(append(slices.Clip(listkind.Kinds), listkind.Kind{Word: "widgets"})); !slices.Equal(words, []string{"widgets"}) {
		t.Errorf("a kind with no view is not found: %q", words)
	}
	for _, k := range listkind.Kinds {
		if tb := listTables[ListKind(k.Word)]; tb.key != k.Key || tb.empty != "server has no "+k.Items {
			t.Errorf("%s: table reads %q, says %q", k.Word, tb.key, tb.empty)
		}
	}
	if len(listViews) != len(listkind.Kinds) {
		t.Errorf("format has %d list views for %d list kinds", len(listViews), len(listkind.Kinds))
	}
}

// The example line names the server as the command line did, quoted for
// a shell.
func TestExampleOf(t *testing.T) {
	for _, c := range []struct {
		server, stdio string
		argv          []string
		want          Example
	}{
		{server: "my server", want: Example{Server: "'my server'"}},
		{stdio: "node s.js", want: Example{Server: "--stdio 'node s.js'"}},
		{argv: []string{"node", "a b.js"}, want: Example{Tail: "-- node 'a b.js'"}},
	} {
		if got := ExampleOf(c.server, c.stdio, c.argv); got != c.want {
			t.Errorf("%+v: %+v", c, got)
		}
	}
}
