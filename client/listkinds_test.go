package client

import "testing"

// ListKindOf is the table's row, with the failure explainer's words.
func TestListKindOf(t *testing.T) {
	k, ok := ListKindOf("templates")
	if !ok || k.Method != "resources/templates/list" || k.Key != "resourceTemplates" || k.Item != "resource template" || k.op != "list resource templates of" {
		t.Errorf("templates: %+v %v", k, ok)
	}
	if k, ok := ListKindOf("tasks"); ok || k != (ListKind{}) {
		t.Errorf("tasks is no list kind: %+v", k)
	}
}
