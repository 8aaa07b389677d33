package conn

import "github.com/modelcontextprotocol/go-sdk/mcp"

// ListKind is one of the lists a server offers, named by the word a user
// types (mcpc list SERVER templates) and ListRaw takes.
type ListKind struct {
	Word   string // "templates"
	Method string // "resources/templates/list"
	Key    string // the key of the result's items: "resourceTemplates"
	Item   string // what one item is called in messages: "resource template"
	op     string // what failed, for the failure explainer
	// Offered reports whether a server's capabilities declare the list.
	Offered func(*mcp.ServerCapabilities) bool
}

// ListKinds is the one table of the lists mcpc reads, in the order
// listings name them; each command picks the words it shows.
var ListKinds = []ListKind{
	{"tools", "tools/list", "tools", "tool", "list tools of", func(c *mcp.ServerCapabilities) bool { return c.Tools != nil }},
	{"resources", "resources/list", "resources", "resource", "list resources of", func(c *mcp.ServerCapabilities) bool { return c.Resources != nil }},
	{"templates", "resources/templates/list", "resourceTemplates", "resource template", "list resource templates of", func(c *mcp.ServerCapabilities) bool { return c.Resources != nil }},
	{"prompts", "prompts/list", "prompts", "prompt", "list prompts of", func(c *mcp.ServerCapabilities) bool { return c.Prompts != nil }},
}

// ListKindOf is the list a word names; false for none.
func ListKindOf(word string) (ListKind, bool) {
	for _, k := range ListKinds {
		if k.Word == word {
			return k, true
		}
	}
	return ListKind{}, false
}

// ListKindWords are the words of ListKinds, in its order.
func ListKindWords() []string {
	words := make([]string, len(ListKinds))
	for i, k := range ListKinds {
		words[i] = k.Word
	}
	return words
}

// Declared reports whether capabilities caps declare the list a word
// names: a scripting client does not ask a server for what it did not
// declare (the answer would be -32601, a rejection for nothing). caps nil
// (no capabilities at all, which the spec does not allow) declares
// nothing either way, so every list is asked for, as before.
func Declared(caps *mcp.ServerCapabilities, word string) bool {
	k, ok := ListKindOf(word)
	return !ok || caps == nil || k.Offered(caps)
}

// Undeclared is what a list the server does not declare holds: no items,
// under the key a server's answer would have.
func Undeclared(word string) []byte {
	k, _ := ListKindOf(word)
	return []byte(`{"` + k.Key + `":[]}`)
}
