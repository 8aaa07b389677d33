package completions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/internal/listkind"
	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// fakeServer answers lists from fixed JSON and completion/complete with
// the values given for an argument.
type fakeServer struct {
	lists  map[string]string
	values map[string][]string
	asked  []string
}

func (s *fakeServer) ListRaw(_ context.Context, kind string) (json.RawMessage, error) {
	s.asked = append(s.asked, kind)
	if l, ok := s.lists[kind]; ok {
		return json.RawMessage(l), nil
	}
	return nil, errors.New("method not found\n(said the server)")
}

func (s *fakeServer) Complete(_ context.Context, ref *mcp.CompleteReference, arg, partial string, args map[string]string) ([]string, bool, error) {
	s.asked = append(s.asked, fmt.Sprintf("complete %s %s%s %s=%q %v", ref.Type, ref.Name, ref.URI, arg, partial, args))
	v, ok := s.values[arg]
	if !ok {
		return nil, false, errors.New("no values")
	}
	return v, len(v) > 1, nil
}

func (*fakeServer) Label() string { return `server "s"` }

// fakeAnswers knows one configured server, s, and counts how often it is
// opened.
type fakeAnswers struct {
	srv    *fakeServer
	opened int
	notes  []string
}

func (*fakeAnswers) Topics() []Candidate { return []Candidate{{"config", "topic"}, {"call", "topic"}} }
func (*fakeAnswers) Servers(Request) []Candidate {
	return []Candidate{{"s", "stdio server"}}
}
func (*fakeAnswers) Tasks(_ Request, server string) []Candidate {
	return []Candidate{{"t-1", "a task of " + server}, {"-t", ""}}
}
func (a *fakeAnswers) Open(_ context.Context, r Request) (Server, func(), error) {
	if r.Positional[0] != "s" {
		return nil, nil, errors.New("not configured")
	}
	a.opened++
	return a.srv, func() {}, nil
}
func (a *fakeAnswers) Note(format string, args ...any) {
	a.notes = append(a.notes, fmt.Sprintf(format, args...))
}

func mcpcTree() *cli.Command {
	root := &cli.Command{Name: "mcpc", Flags: []cli.Flag{&cli.StringFlag{Name: "stdio"}}}
	for _, n := range []string{"call", "list", "read", "prompt", "help", "completion", "trust", "skills"} {
		root.Commands = append(root.Commands, &cli.Command{Name: n, Usage: "the " + n + " command"})
	}
	root.Commands = append(root.Commands, &cli.Command{Name: "task", Commands: []*cli.Command{{Name: "get"}, {Name: "list"}}})
	return root
}

func TestArgs(t *testing.T) {
	srv := &fakeServer{
		lists: map[string]string{
			"tools":     `{"tools":[{"name":"echo","description":"says","inputSchema":{"properties":{"msg":{"description":"what"},"loud":{"type":"boolean"},"mode":{"enum":["a","b"]}}}},{"name":"--stdio=rm -rf ~"}]}`,
			"prompts":   `{"prompts":[{"name":"greet","arguments":[{"name":"who"},{"name":"how"}]}]}`,
			"resources": `{"resources":[{"uri":"file:///etc/x","name":"x"}]}`,
			"templates": `{"resourceTemplates":[{"name":"file","uriTemplate":"file:///{path}"}]}`,
		},
		values: map[string][]string{"who": {"Ada", "Alan"}, "path": {"etc"}},
	}
	for _, tc := range []struct {
		line  string
		want  []string
		asked []string
		notes []string
	}{
		{line: "help ", want: []string{"config", "call", "list", "read", "prompt", "help", "completion", "trust", "skills", "task"}},
		{line: "help config ", want: nil},
		{line: "completion ", want: Shells},
		{line: "trust ", want: []string{FilesDirective}},
		{line: "task get ", want: []string{"s"}},
		{line: "task get s ", want: []string{"t-1"}},
		{line: "task list s ", want: nil},
		{line: "skills ", want: []string{"s"}},
		{line: "call ", want: []string{"s"}},
		{line: "call --stdio x ", want: nil},
		{line: "call u ", want: nil},
		{line: "call s ", want: []string{"echo"}, asked: []string{"tools"}},
		{line: "list s ", want: []string{"tools", "resources", "templates", "prompts", "echo"}, asked: []string{"tools"}},
		{line: "list s templates ", want: []string{"file"}, asked: []string{"templates"}},
		{line: "list s prompts ", want: []string{"greet"}, asked: []string{"prompts"}},
		{line: "list s resources ", want: nil},
		{line: "call s echo msg=x ", want: []string{"loud=", "mode="}, asked: []string{"tools"}},
		{line: "call s echo mode=", want: []string{"mode=a", "mode=b"}, asked: []string{"tools"}},
		{line: "call s echo loud:=", want: []string{"loud:=true", "loud:=false"}, asked: []string{"tools"}},
		{line: "prompt s greet how=x ", want: []string{"who="}, asked: []string{"prompts"}},
		{line: "prompt s greet how=x who=A", want: []string{"who=Ada", "who=Alan"},
			asked: []string{`complete ref/prompt greet who="A" map[how:x]`},
			notes: []string{`server "s" has more values for "who" than the 2 offered: type more of the value to narrow them`}},
		{line: "read s file:///e", want: []string{"file:///etc", "file:///etc/x"},
			asked: []string{"resources", "templates", `complete ref/resource file:///{path} path="e" map[]`}},
		{line: "read s ", want: []string{"file:///", "file:///etc/x"}, asked: []string{"resources", "templates"}},
		{line: "list s widgets ", want: nil},
	} {
		a := &fakeAnswers{srv: srv}
		srv.asked = nil
		got := values(Complete(mcpcTree(), strings.Split(tc.line, " "), answersSource{a}))
		if !slices.Equal(got, tc.want) || !slices.Equal(srv.asked, tc.asked) || !slices.Equal(a.notes, tc.notes) {
			t.Errorf("%q: %q, asked %q, notes %q; want %q, %q, %q", tc.line, got, srv.asked, a.notes, tc.want, tc.asked, tc.notes)
		}
		if a.opened > 1 || a.opened == 1 && tc.asked == nil {
			t.Errorf("%q: the server opened %d times", tc.line, a.opened)
		}
	}
}

// A kind added to listkind.Kinds, and nowhere else, is completed: mcpc
// list offers its word, and its items' names (described as a tool's are)
// after it; a server that cannot list it is noted.
func TestAKindAddedToTheTableIsCompleted(t *testing.T) {
	saved := listkind.Kinds
	listkind.Kinds = append(slices.Clip(saved), listkind.Kind{Word: "widgets", Method: "widgets/list", Key: "widgetItems", Item: "widget", Items: "widgets", Capability: "widgets"})
	t.Cleanup(func() { listkind.Kinds = saved })
	srv := &fakeServer{lists: map[string]string{
		"tools":   `{"tools":[]}`,
		"widgets": `{"widgetItems":[{"name":"w1","description":"a widget"}]}`,
	}}
	a := &fakeAnswers{srv: srv}
	got := Complete(mcpcTree(), []string{"list", "s", ""}, answersSource{a})
	if want := (Candidate{"widgets", "list the server's widgets"}); !slices.Contains(got, want) {
		t.Errorf("list s: %q, want %q among them", got, want)
	}
	if got := Complete(mcpcTree(), []string{"list", "s", "widgets", ""}, answersSource{a}); !slices.Equal(got, []Candidate{{"w1", "a widget"}}) {
		t.Errorf("list s widgets: %q", got)
	}
	delete(srv.lists, "widgets")
	if got := Complete(mcpcTree(), []string{"list", "s", "widgets", ""}, answersSource{a}); got != nil || !slices.Contains(a.notes, "no names offered: method not found (said the server)") {
		t.Errorf("list s widgets, not listed: %q, notes %q", got, a.notes)
	}
}

// answersSource is how commands wires Answers into Complete.
type answersSource struct{ a Answers }

func (answersSource) FlagValues(Request, string) []Candidate { return nil }
func (s answersSource) Args(r Request) []Candidate {
	return Args(context.Background(), r, s.a)
}

// bytesServer answers ListRaw with its lists as they are, no copy made.
type bytesServer struct {
	fakeServer
	raw map[string][]byte
}

func (s *bytesServer) ListRaw(_ context.Context, kind string) (json.RawMessage, error) {
	return s.raw[kind], nil
}

// Completing a tool's arguments and values reads the tool list where it
// lies: gjson.GetBytes copied the list (and Array made a result of each
// item) for each word completed.
func TestListsReadInPlace(t *testing.T) {
	list := memtest.List("tools", 20000, func(i int) string { // about 4 MB
		return fmt.Sprintf(`{"name":"tool-%d","description":"%s","inputSchema":{"type":"object","properties":{"mode":{"enum":["a","b"]}}}}`, i, strings.Repeat("d", 120))
	})
	l := lookup{ctx: context.Background(), srv: &bytesServer{raw: map[string][]byte{"tools": list}}, note: func(string, ...any) {}, pos: []string{"tool-19999"}}
	// list offers every name, a Candidate each: what it may allocate is
	// that, not the list again.
	for what, c := range map[string]struct {
		f     func() []Candidate
		limit int
	}{
		"argNames":     {func() []Candidate { return l.argNames("tool-args") }, len(list) / 10},
		"schemaValues": {func() []Candidate { return l.schemaValues("mode", "=") }, len(list) / 10},
		"list":         {func() []Candidate { return l.list("tools", Request{Path: []string{"call"}}) }, len(list)},
	} {
		var got []Candidate
		n := memtest.Allocated(func() { got = c.f() })
		t.Logf("%s, a %d-byte list: %d bytes allocated", what, len(list), n)
		if len(got) == 0 {
			t.Errorf("%s offered nothing", what)
		}
		if n > uint64(c.limit) {
			t.Errorf("%s of a %d-byte list allocated %d bytes, want at most %d", what, len(list), n, c.limit)
		}
	}
}
