package commands

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/internal/listkind"
)

// withKind adds k to the one table of list kinds for the test.
func withKind(t *testing.T, k listkind.Kind) {
	t.Helper()
	saved := listkind.Kinds
	listkind.Kinds = append(slices.Clip(saved), k)
	t.Cleanup(func() { listkind.Kinds = saved })
}

// A kind added to listkind.Kinds, and nowhere else, is a kind every
// command word and message knows: mcpc list takes it, its usage lines and
// the top-level usage offer it, the note of an undeclared list and the
// failure to find an item name it as the row says, and client reads it.
// (format has a test of its own that every kind renders.)
func TestAKindAddedToTheTableReachesEveryUse(t *testing.T) {
	withKind(t, listkind.Kind{Word: "widgets", Method: "widgets/list", Key: "widgets", Item: "widget", Items: "widgets", Capability: "gadgets"})
	o, err := listArgs(&globals{adhoc: config.AdHoc{}}, []string{"fs", "widgets", "w1"})
	if err != nil || o != (listOptions{server: "fs", kind: "widgets", name: "w1"}) {
		t.Errorf("listArgs: %+v, %v", o, err)
	}
	list := listCommand(&state{})
	if want := "[SERVER [tools|resources|templates|prompts|widgets] [NAME]]"; !strings.Contains(list.ArgsUsage, want) {
		t.Errorf("list's usage %q does not offer %q", list.ArgsUsage, want)
	}
	if want := "a server's tools, resources, templates, prompts or widgets,"; !strings.Contains(list.Usage, want) {
		t.Errorf("list's summary %q does not say %q", list.Usage, want)
	}
	if want := "mcpc list [SERVER [tools|resources|templates|prompts|widgets] [NAME]]"; !strings.Contains(newRoot(&state{}).UsageText, want) {
		t.Errorf("mcpc's usage does not offer %q", want)
	}
	if got, want := undeclaredNote("fs", "widgets"), "fs declares no gadgets, so no widgets"; got != want {
		t.Errorf("undeclared note %q, want %q", got, want)
	}
}

// The words of today's table, as list's usage shows them, and the notes
// of lists a server does not declare: derived, and as they always read.
func TestListKindWordsAsShown(t *testing.T) {
	if got := listCommand(&state{}).ArgsUsage; got != "[SERVER [tools|resources|templates|prompts] [NAME]] | --check [SERVER...]" {
		t.Errorf("list's usage: %q", got)
	}
	if got := listCommand(&state{}).Usage; got != "list servers, a server's tools, resources, templates or prompts, or describe one" {
		t.Errorf("list's summary: %q", got)
	}
	for word, want := range map[string]string{
		"tools":     "fs declares no tools",
		"resources": "fs declares no resources",
		"templates": "fs declares no resources, so no resource templates",
		"prompts":   "fs declares no prompts",
	} {
		if got := undeclaredNote("fs", word); got != want {
			t.Errorf("%s: %q, want %q", word, got, want)
		}
	}
}
