package commands

import (
	"testing"

	"github.com/mcpc-dev/mcpc/client/conn"

	"github.com/mcpc-dev/mcpc/format"
)

// conn.ListKinds is the one table of the lists mcpc reads; format keys
// how each renders by the same words (format imports no client). A word
// added to the table without a rendering would print as generic JSON.
func TestEveryListKindRenders(t *testing.T) {
	for _, k := range conn.ListKinds {
		if format.ListKind(k.Word) == format.KindGeneric {
			t.Errorf("list kind %q has no rendering in format.ListKind", k.Word)
		}
	}
	if len(conn.ListKinds) != 4 {
		t.Errorf("conn.ListKinds has %d kinds, want tools, resources, templates, prompts", len(conn.ListKinds))
	}
}
