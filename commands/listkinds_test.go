package commands

import (
	"testing"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/format"
)

// client.ListKinds is the one table of the lists mcpc reads; format keys
// how each renders by the same words (format imports no client). A word
// added to the table without a rendering would print as generic JSON.
func TestEveryListKindRenders(t *testing.T) {
	for _, k := range client.ListKinds {
		if format.ListKind(k.Word) == format.KindGeneric {
			t.Errorf("list kind %q has no rendering in format.ListKind", k.Word)
		}
	}
	if len(client.ListKinds) != 4 {
		t.Errorf("client.ListKinds has %d kinds, want tools, resources, templates, prompts", len(client.ListKinds))
	}
}
