package client

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/credentials"
	"github.com/mcpc-dev/mcpc/client/sessions"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
)

// grep's PATTERN: case-insensitive; --name leaves titles and descriptions
// out; one that does not compile is a usage error saying it as written.
func TestCompilePattern(t *testing.T) {
	p, err := CompilePattern("^ECHO", false)
	if err != nil {
		t.Fatal(err)
	}
	m := Match{Name: "add", Description: "echo back"}
	if !p.Match(m) || !p.Match(Match{Name: "Echo2"}) || p.Match(Match{Name: "x", URI: "file:///echo"}) {
		t.Error("pattern matched wrongly")
	}
	if p.NamesOnly = true; p.Match(m) {
		t.Error("a names-only pattern matched a description")
	}
	_, err = CompilePattern("a(", false)
	if e := fail.As(err); e == nil || e.Code != fail.Usage || e.Msg != `invalid PATTERN "a(": missing closing ): "a("` ||
		!strings.Contains(e.Hint, "RE2 syntax") {
		t.Errorf("error %#v", err)
	}
}

// The notes come in the targets' order whatever order the servers
// answered in, and the verdict says what the search as a whole came to.
func TestSearchesDone(t *testing.T) {
	up := func(name string) Target { return Target{Target: config.Target{Name: name, Entry: &config.Entry{}}} }
	named := Target{Target: config.Target{Name: "off", Named: true, Skip: "disabled"}}
	cases := []struct {
		name    string
		targets []Target
		run     func(s *Searches)
		notes   string
		matches int
		err     string
		hint    string
	}{
		{name: "no targets", err: "no servers to search", hint: "add one with: mcpc config add NAME …, or name a server (or URL) after PATTERN"},
		{name: "matches", targets: []Target{up("a"), up("b")}, matches: 2, run: func(s *Searches) {
			s.Found(1, []Match{{Name: "y"}}, []*fail.Error{fail.New(fail.Protocol, "", "prompts failed")})
			s.Found(0, []Match{{Name: "x"}}, nil)
		}, notes: "mcpc: note: b: prompts failed\n"},
		{name: "no match", targets: []Target{up("a")}, run: func(s *Searches) { s.Found(0, nil, nil) }, err: "no match"},
		{name: "none reached", targets: []Target{up("a"), up("b"), up("c")}, run: func(s *Searches) {
			s.Failed(2, fail.New(fail.Timeout, "hint of c", "c timed out"))
			s.Failed(1, fail.New(fail.Connection, "hint of b", "cannot start b"))
			s.Failed(0, fail.New(fail.Timeout, "hint of a", "a timed out"))
		}, notes: "mcpc: note: a not searched: a timed out\nmcpc: note: b not searched: cannot start b\nmcpc: note: c not searched: c timed out\n",
			err: "no server could be searched (3 tried)", hint: "hint of b"},
		{name: "none startable", targets: []Target{named}, notes: "mcpc: note: off not searched: off is disabled\n",
			err: "no server could be searched: none of those named can be started", hint: "name a server that can be started"},
	}
	for _, c := range cases {
		unusable := make([]*fail.Error, len(c.targets))
		for i, t := range c.targets {
			if t.Named {
				unusable[i] = fail.New(fail.Config, "", "%s is disabled", t.Name)
			}
		}
		s := NewSearches(c.targets, unusable)
		if c.run != nil {
			c.run(s)
		}
		var notes strings.Builder
		ms, err := s.Done(&notes)
		if notes.String() != c.notes || len(ms) != c.matches {
			t.Errorf("%s: notes %q, %d matches", c.name, notes.String(), len(ms))
		}
		if got := ""; err != nil {
			got = err.Error()
			if got != c.err || fail.As(err).Hint != c.hint {
				t.Errorf("%s: error %q hint %q, want %q hint %q", c.name, got, fail.As(err).Hint, c.err, c.hint)
			}
		} else if c.err != "" {
			t.Errorf("%s: no error, want %q", c.name, c.err)
		}
	}
	if _, err := NewSearches([]Target{up("a")}, make([]*fail.Error, 1)).Done(&strings.Builder{}); !errors.Is(err, ErrNoMatch) {
		t.Errorf("nothing found: %v", err)
	}
}

// A check's verdict is its most severe failure; one failure's hint is
// kept, several have the table's; a secret echoed back is redacted.
func TestCheckResult(t *testing.T) {
	targets := []Target{
		{Target: config.Target{Name: "up", Entry: &config.Entry{}}, Transport: "stdio"},
		{Target: config.Target{Name: "slow", Entry: &config.Entry{}}, Transport: "http"},
		{Target: config.Target{Name: "down", Entry: &config.Entry{}}, Transport: "http"},
	}
	rows := CheckRows(targets, make([]*fail.Error, 3))
	rows[0].Finish(time.Now(), nil)
	rows[1].Finish(time.Now(), fail.New(fail.Timeout, "raise it", "timed out"))
	if err := CheckResult(nil, rows); err == nil || err.Error() != "1 of 3 servers are not ok; the most severe: slow (timeout)" || fail.As(err).Hint != "raise it" {
		t.Errorf("one failure: %v", err)
	}
	rows[2].Finish(time.Now(), fail.New(fail.Connection, "start it with tok-echoed-4f2a9c", "cannot reach down: tok-echoed-4f2a9c"))
	set := redact.NewSet()
	set.Add("tok-echoed-4f2a9c")
	RedactCheckRows(rows, set)
	var notes strings.Builder
	err := CheckResult(&notes, rows)
	if fail.CodeOf(err) != fail.Connection || err.Error() != "2 of 3 servers are not ok; the most severe: down (unreachable)" ||
		fail.As(err).Hint != `see the STATUS column (--json: each server's "error")` {
		t.Errorf("two failures: %v", err)
	}
	if want := "mcpc: note: slow: timed out\nmcpc: note: down: cannot reach down: <redacted>\n"; notes.String() != want {
		t.Errorf("notes %q, want %q", notes.String(), want)
	}
	if rows[0].Status != "ok" || rows[0].MS == nil || rows[2].failure.Hint != "start it with <redacted>" {
		t.Errorf("rows %+v", rows)
	}
	if err := CheckResult(nil, rows[:1]); err != nil {
		t.Errorf("all ok: %v", err)
	}
}

// The list is read where it lies: the item named (a template by its
// uriTemplate too), or, when there is none, the names there are.
func TestFindItem(t *testing.T) {
	tools := []byte(`{"tools":[{"name":"a"},{"name":5},{"name":"b","title":"B"}]}`)
	if item, _ := FindItem(tools, "tools", "b"); string(item) != `{"name":"b","title":"B"}` {
		t.Errorf("found %s", item)
	}
	if item, names := FindItem(tools, "tools", "5"); item != nil || strings.Join(names, ",") != "a,5,b" {
		t.Errorf("a number is no name: %s, names %q", item, names)
	}
	templates := []byte(`{"resourceTemplates":[{"name":"t","uriTemplate":"file:///{x}"}]}`)
	if item, _ := FindItem(templates, "templates", "file:///{x}"); item == nil {
		t.Error("a template is not found by its uriTemplate")
	}
}

func TestMostSevere(t *testing.T) {
	fs := []*fail.Error{nil, fail.New(fail.AuthRequired, "", "a"), fail.New(fail.Timeout, "", "t"), fail.New(fail.Timeout, "", "t2")}
	if w := MostSevere(fs); w != 2 {
		t.Errorf("most severe %d, want 2 (a timeout before auth, the first of its rank)", w)
	}
	if w := MostSevere(make([]*fail.Error, 2)); w != -1 {
		t.Errorf("none failed: %d", w)
	}
}

// Every server of every file is a row, ordered by name and by precedence
// within a name (the later file wins); an untrusted project's are listed
// inactive, and only an active, usable entry has its auth state asked.
func TestServerListRows(t *testing.T) {
	user := &config.File{Path: "user.json", Names: []string{"b", "a"}, Servers: map[string]*config.Server{
		"b": {Command: "b"}, "a": {URL: "https://a.example/mcp", BearerTokenEnv: "A_TOKEN"}}}
	local := &config.File{Path: "local.json", Names: []string{"a", "off"}, Servers: map[string]*config.Server{
		"a": {URL: "https://a2.example/mcp", BearerTokenEnv: "A2_TOKEN"}, "off": {Command: "x", Disabled: true}}}
	project := &config.File{Path: ".mcp.json", Names: []string{"p"}, Servers: map[string]*config.Server{"p": {Command: "p"}}}
	cfg := &config.Config{Files: []*config.File{user, local}, Project: project, ProjectTrust: config.Untrusted,
		Servers: map[string]*config.Entry{"a": {Name: "a", Server: local.Servers["a"], File: local},
			"b": {Name: "b", Server: user.Servers["b"], File: user}, "off": {Name: "off", Server: local.Servers["off"], File: local}}}
	var told []string
	l := ServerList{
		Credentials: credentials.Credentials{Getenv: func(string) string { return "" }},
		Sessions:    &sessions.Sessions{Store: sessions.SessionStore(t.TempDir(), "")},
		Entry: func(srv *config.Server, loaded bool) {
			told = append(told, srv.Command+srv.URL+map[bool]string{true: "", false: " (not loaded)"}[loaded])
		},
	}
	var got []string
	for _, r := range l.Rows(t.Context(), cfg) {
		got = append(got, strings.Join([]string{r.Name, r.Source, r.Transport, map[bool]string{true: "active", false: "inactive"}[r.Active], r.Auth}, " "))
	}
	want := []string{
		"a local.json http active A2_TOKEN not set",
		"a user.json http inactive ",
		"b user.json stdio active ",
		"off local.json stdio active ",
		"p .mcp.json stdio inactive ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if w := "https://a2.example/mcp x b https://a.example/mcp p (not loaded)"; strings.Join(told, " ") != w {
		t.Errorf("entries told %q, want %q", strings.Join(told, " "), w)
	}
}
