package format

import "testing"

func TestListKinds(t *testing.T) {
	if ListKind("templates") != KindTemplateList || ItemKind("prompts") != KindPrompt || ListKind("skills") != KindGeneric {
		t.Error("list kinds")
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
