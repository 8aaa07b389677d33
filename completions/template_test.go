package completions

import (
	"reflect"
	"testing"
)

func TestMatchTemplate(t *testing.T) {
	for _, c := range []struct {
		tpl, word string
		ok        bool
		want      TemplateMatch
	}{
		// The word ends in the template's text: offer it up to the variable.
		{"test://items/{id}", "test://it", true, TemplateMatch{Prefix: "test://items/", Vars: map[string]string{}}},
		{"test://items/{id}", "", true, TemplateMatch{Prefix: "test://items/", Vars: map[string]string{}}},
		// Inside the Variable: complete it.
		{"test://items/{id}", "test://items/1", true, TemplateMatch{Prefix: "test://items/", Variable: "id", Partial: "1", Vars: map[string]string{}}},
		// A later variable gets the earlier ones as its context.
		{"db://{schema}/{table}", "db://public/us", true, TemplateMatch{Prefix: "db://public/", Variable: "table", Partial: "us", Vars: map[string]string{"schema": "public"}}},
		{"db://{schema}/{table}", "db://public", true, TemplateMatch{Prefix: "db://", Variable: "schema", Partial: "public", Vars: map[string]string{}}},
		{"db://{schema}/{table}/rows", "db://a/b/r", true, TemplateMatch{Prefix: "db://a/b/r" + "ows", Vars: map[string]string{"schema": "a", "table": "b"}}},
		// Not this template, or past its end, or an operator mcpc does not expand.
		{"test://items/{id}", "file://x", false, TemplateMatch{}},
		{"test://items", "test://items", false, TemplateMatch{}},
		{"test://{+path}", "test://a", false, TemplateMatch{}},
		{"test://{id", "test://a", false, TemplateMatch{}},
	} {
		got, ok := MatchTemplate(c.tpl, c.word)
		if ok != c.ok || ok && !reflect.DeepEqual(got, c.want) {
			t.Errorf("MatchTemplate(%q, %q) = %+v, %v; want %+v, %v", c.tpl, c.word, got, ok, c.want, c.ok)
		}
	}
}
