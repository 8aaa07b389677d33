package client

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/listkind"
)

// The one table of the lists mcpc reads is internal/listkind's, a leaf,
// so that format and completions read it too; what follows forwards to
// it under the names client has always used.

// ListKind is a list kind of listkind.Kinds, with what failed when it
// could not be read, for the failure explainer (op: listkind.Kind.Op).
type ListKind struct {
	listkind.Kind
	op string
}

// ListKindOf is the list a word names; false for none.
func ListKindOf(word string) (ListKind, bool) {
	k, ok := listkind.Of(word)
	if !ok {
		return ListKind{}, false
	}
	return ListKind{Kind: k, op: k.Op()}, true
}

// Declared is listkind.Declared.
func Declared(caps *mcp.ServerCapabilities, word string) bool { return listkind.Declared(caps, word) }

// Undeclared is listkind.Undeclared.
func Undeclared(word string) []byte { return listkind.Undeclared(word) }
