// Package listkind is the one table of the lists a server offers (tools,
// resources, resource templates, prompts): the word a user types, the
// method that reads it, the key of its items, what its items are called
// and the capability that declares it. Every other place that names the
// list kinds (mcpc list's arguments and help, the failure explainer's
// words, the text renderer's keys and notes, shell completion) derives
// what it needs from this table, so that a kind is added in one row.
//
// It is a leaf (it imports none of mcpc's packages), so that format and
// completions, which may import only leaves, read the same table as
// client and commands.
package listkind

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Kind is one of the lists a server offers.
type Kind struct {
	Word   string // what a user types (mcpc list SERVER templates): "templates"
	Method string // the request that reads it: "resources/templates/list"
	Key    string // the key of the result's items: "resourceTemplates"
	Item   string // what one item is called in messages: "resource template"
	Items  string // what many are called: "resource templates"
	// Capability is the server capability that declares the list (and
	// whose list_changed notification is about it): "resources".
	Capability string
}

// Kinds is the table, in the order listings name the kinds; each command
// picks the words it shows.
var Kinds = []Kind{
	{"tools", "tools/list", "tools", "tool", "tools", "tools"},
	{"resources", "resources/list", "resources", "resource", "resources", "resources"},
	{"templates", "resources/templates/list", "resourceTemplates", "resource template", "resource templates", "resources"},
	{"prompts", "prompts/list", "prompts", "prompt", "prompts", "prompts"},
}

// Of is the kind a word names; false for none.
func Of(word string) (Kind, bool) {
	for _, k := range Kinds {
		if k.Word == word {
			return k, true
		}
	}
	return Kind{}, false
}

// Words are the words of Kinds, in its order.
func Words() []string {
	words := make([]string, len(Kinds))
	for i, k := range Kinds {
		words[i] = k.Word
	}
	return words
}

// Alternatives are the words as a usage line offers them:
// "tools|resources|templates|prompts".
func Alternatives() string { return strings.Join(Words(), "|") }

// Offered reports whether capabilities c declare the list.
func (k Kind) Offered(c *mcp.ServerCapabilities) bool {
	switch k.Capability {
	case "tools":
		return c.Tools != nil
	case "resources":
		return c.Resources != nil
	case "prompts":
		return c.Prompts != nil
	}
	return false
}

// Op is what failed when the list could not be read, as the failure
// explainer says it: "list resource templates of" (the server's name
// follows).
func (k Kind) Op() string { return "list " + k.Items + " of" }

// Declared reports whether capabilities caps declare the list a word
// names: a scripting client does not ask a server for what it did not
// declare (the answer would be -32601, a rejection for nothing). caps nil
// (no capabilities at all, which the spec does not allow) declares
// nothing either way, so every list is asked for, as before.
func Declared(caps *mcp.ServerCapabilities, word string) bool {
	k, ok := Of(word)
	return !ok || caps == nil || k.Offered(caps)
}

// Undeclared is what a list the server does not declare holds: no items,
// under the key a server's answer would have.
func Undeclared(word string) []byte {
	k, _ := Of(word)
	return []byte(`{"` + k.Key + `":[]}`)
}
