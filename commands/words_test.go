package commands

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

// The positional words of every command, read without a server: the
// valid forms, and each wrong one with its message and exit status.

// refused is what a parse returned as a test pins it: the error's
// message and exit status ("" and 0 for none).
func refused(t *testing.T, err error) (string, int) {
	t.Helper()
	if err == nil {
		return "", 0
	}
	var f *fail.Error
	if !errors.As(err, &f) {
		t.Fatalf("not a fail.Error: %v", err)
	}
	return f.Msg, f.Code.Exit()
}

// wordCase is one command line's words: what a parse returns (got, as
// the test prints it) or its error and exit.
type wordCase struct {
	name  string
	adhoc config.AdHoc
	args  []string
	got   string
	err   string
	exit  int
}

// checkWords runs parse over each case.
func checkWords(t *testing.T, cases []wordCase, parse func(g *globals, args []string) (string, error)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parse(&globals{adhoc: tc.adhoc, cwd: t.TempDir()}, tc.args)
			if msg, exit := refused(t, err); msg != tc.err || exit != tc.exit {
				t.Fatalf("error %q (exit %d), want %q (exit %d)", msg, exit, tc.err, tc.exit)
			}
			if tc.err == "" && got != tc.got {
				t.Errorf("%q read as %q, want %q", tc.args, got, tc.got)
			}
		})
	}
}

const (
	missingServer = "missing SERVER"
	urlAndStdio   = "give either a server URL or a --stdio command, not both"
)

// ping, reconnect and session start take SERVER and nothing else.
func TestSoleTargetArgs(t *testing.T) {
	checkWords(t, []wordCase{
		{name: "a server", args: []string{"fs"}, got: "fs"},
		{name: "a URL", args: []string{"https://x.example/mcp"}, got: "https://x.example/mcp"},
		{name: "--stdio: no word", adhoc: stdioTarget, got: ""},
		{name: "no server", err: missingServer, exit: 2},
		{name: "a word too many", args: []string{"fs", "x"}, err: `unexpected argument "x"`, exit: 2},
		{name: "--stdio and a word", adhoc: stdioTarget, args: []string{"x"}, err: `unexpected argument "x"`, exit: 2},
		{name: "--stdio and a URL", adhoc: stdioTarget, args: []string{"https://x.example/mcp"}, err: urlAndStdio, exit: 2},
	}, soleTarget)
}

// mcpc call's words and the flags read with them.
func TestCallWords(t *testing.T) {
	for _, tc := range []struct {
		name  string
		adhoc config.AdHoc
		words []string
		f     callFlags
		want  string // server|tool|base|pairs, or the batch file
		err   string
	}{
		{"server, tool, arguments", config.AdHoc{}, []string{"ev", "echo", "message=hi", "n:=2"}, callFlags{}, "ev|echo|map[]|message=hi n:=2", ""},
		{"--args and a word", config.AdHoc{}, []string{"ev", "echo", "b=2"}, callFlags{args: `{"a":1}`, argsSet: true}, "ev|echo|map[a:1]|b=2", ""},
		{"--stdio: the first word is the tool", stdioTarget, []string{"echo"}, callFlags{}, "|echo|map[]|", ""},
		{"--batch: SERVER only", config.AdHoc{}, []string{"ev"}, callFlags{batch: "-"}, "batch -", ""},
		{"no server", config.AdHoc{}, nil, callFlags{}, "", missingServer},
		{"no tool", config.AdHoc{}, []string{"ev"}, callFlags{}, "", "missing TOOL"},
		{"--stdio and a URL", stdioTarget, []string{"https://x.example/mcp", "echo"}, callFlags{}, "", urlAndStdio},
		{"a word that is no argument", config.AdHoc{}, []string{"ev", "echo", "oops"}, callFlags{}, "", `invalid argument "oops": expected key=value or key:=json`},
		{"bad --args", config.AdHoc{}, []string{"ev", "echo"}, callFlags{args: "[1]", argsSet: true}, "", "--args must be a JSON object"},
		{"--batch and a tool", config.AdHoc{}, []string{"ev", "echo"}, callFlags{batch: "-"}, "", `unexpected argument "echo" with --batch`},
		{"--batch and --task", config.AdHoc{}, []string{"ev"}, callFlags{batch: "-", task: true}, "", "--batch cannot be combined with --task or --detach"},
		{"--batch and --detach", config.AdHoc{}, []string{"ev"}, callFlags{batch: "-", detach: true}, "", "--batch cannot be combined with --task or --detach"},
		{"--batch and --text", config.AdHoc{}, []string{"ev"}, callFlags{batch: "-", text: true}, "", "--batch prints JSON Lines; --text cannot be used with it"},
		{"--batch and --args", config.AdHoc{}, []string{"ev"}, callFlags{batch: "-", argsSet: true, args: "{}"}, "", "--args cannot be used with --batch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := callWords(&globals{adhoc: tc.adhoc}, tc.words, tc.f, toolschema.Source{Cwd: t.TempDir(), Stdin: strings.NewReader("")})
			if msg, exit := refused(t, err); msg != tc.err || (tc.err != "") != (exit == 2) {
				t.Fatalf("error %q (exit %d), want %q (exit 2)", msg, exit, tc.err)
			}
			if tc.err != "" {
				return
			}
			got := "batch " + o.batch
			if o.batch == "" {
				var pairs []string
				for _, p := range o.pairs {
					sep := "="
					if p.Typed {
						sep = ":="
					}
					pairs = append(pairs, p.Key+sep+p.Raw)
				}
				got = strings.Join([]string{o.server, o.tool, sprint(o.base), strings.Join(pairs, " ")}, "|")
			}
			if got != tc.want {
				t.Errorf("callWords(%q) = %s, want %s", tc.words, got, tc.want)
			}
		})
	}
}

// mcpc read SERVER URI.
func TestReadArgs(t *testing.T) {
	checkWords(t, []wordCase{
		{name: "server and URI", args: []string{"ev", "demo://a"}, got: "ev demo://a"},
		{name: "--stdio: the URI only", adhoc: stdioTarget, args: []string{"demo://a"}, got: " demo://a"},
		{name: "no server", err: missingServer, exit: 2},
		{name: "no URI", args: []string{"ev"}, err: "missing URI", exit: 2},
		{name: "two URIs", args: []string{"ev", "a://", "b://"}, err: `unexpected argument "b://"`, exit: 2},
	}, func(g *globals, args []string) (string, error) {
		o, err := readArgs(g, args)
		return o.server + " " + o.uri, err
	})
}

// mcpc snapshot SERVER, and mcpc skills SERVER.
func TestSnapshotAndSkillsArgs(t *testing.T) {
	for name, parse := range map[string]func(*globals, []string) (string, error){"snapshot": snapshotArgs, "skills": skillsArgs} {
		t.Run(name, func(t *testing.T) {
			checkWords(t, []wordCase{
				{name: "a server", args: []string{"ev"}, got: "ev"},
				{name: "--stdio", adhoc: stdioTarget, got: ""},
				{name: "no server", err: missingServer, exit: 2},
				{name: "a word too many", args: []string{"ev", "out.json"}, err: `unexpected argument "out.json"`, exit: 2},
			}, parse)
		})
	}
}

// mcpc skills get SERVER NAME [--out DIR].
func TestSkillGetArgs(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(full, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out := func(s string) *string { return &s }
	for _, tc := range []struct {
		name string
		args []string
		out  *string
		want string
		err  string
	}{
		{"server and name", []string{"docs", "pdf"}, nil, "docs pdf ", ""},
		{"--out, relative to the working directory", []string{"docs", "pdf"}, out("new"), "docs pdf " + filepath.Join(dir, "new"), ""},
		{"no name", []string{"docs"}, nil, "", "missing skill NAME"},
		{"two names", []string{"docs", "a", "b"}, nil, "", `unexpected argument "b"`},
		{"--out empty", []string{"docs", "pdf"}, out(""), "", "--out needs a directory"},
		{"--out not empty", []string{"docs", "pdf"}, out("full"), "", "--out: " + full + " exists and is not empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := skillGetArgs(&globals{cwd: dir}, tc.args, tc.out)
			if msg, exit := refused(t, err); msg != tc.err || (tc.err != "") != (exit == 2) {
				t.Fatalf("error %q (exit %d), want %q (exit 2)", msg, exit, tc.err)
			}
			if got := o.server + " " + o.name + " " + o.out; tc.err == "" && got != tc.want {
				t.Errorf("skillGetArgs(%q) = %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}

// mcpc task get|result|cancel SERVER TASK_ID, task list SERVER.
func TestTaskArgs(t *testing.T) {
	stdio := "mcpc task needs an HTTP server: a stdio server's tasks end with the invocation that starts them"
	for _, op := range []string{"get", "result", "cancel"} {
		t.Run(op, func(t *testing.T) {
			checkWords(t, []wordCase{
				{name: "server and id", args: []string{"ev", "t-1"}, got: "ev t-1"},
				{name: "no server", err: missingServer, exit: 2},
				{name: "no id", args: []string{"ev"}, err: "missing TASK_ID", exit: 2},
				{name: "two ids", args: []string{"ev", "a", "b"}, err: `unexpected argument "b"`, exit: 2},
				{name: "--stdio", adhoc: stdioTarget, args: []string{"t-1"}, err: stdio, exit: 2},
			}, func(g *globals, args []string) (string, error) {
				server, id, err := taskArgs(g, op, args)
				return server + " " + id, err
			})
		})
	}
	t.Run("list", func(t *testing.T) {
		checkWords(t, []wordCase{
			{name: "a server", args: []string{"ev"}, got: "ev "},
			{name: "no server", err: missingServer, exit: 2},
			{name: "an id too", args: []string{"ev", "t-1"}, err: `unexpected argument "t-1"`, exit: 2},
			{name: "--stdio", adhoc: stdioTarget, err: stdio, exit: 2},
		}, func(g *globals, args []string) (string, error) {
			server, id, err := taskArgs(g, "list", args)
			return server + " " + id, err
		})
	})
}

// mcpc grep PATTERN [SERVER...].
func TestGrepArgs(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      []string
		namesOnly bool
		want      string
		err       string
	}{
		{"a pattern: every server", []string{"echo"}, false, "(?i)echo false []", ""},
		{"--name and two servers", []string{"^e", "a", "b"}, true, "(?i)^e true [a b]", ""},
		{"no pattern", nil, false, "", "missing PATTERN"},
		{"a bad pattern", []string{"(", "a"}, false, "", `invalid PATTERN "(": missing closing ): "("`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, servers, err := grepArgs(tc.args, tc.namesOnly)
			if msg, exit := refused(t, err); msg != tc.err || (tc.err != "") != (exit == 2) {
				t.Fatalf("error %q (exit %d), want %q (exit 2)", msg, exit, tc.err)
			}
			if tc.err == "" {
				if got := p.Re.String() + " " + sprint(p.NamesOnly) + " " + sprint(servers); got != tc.want {
					t.Errorf("grepArgs(%q) = %s, want %s", tc.args, got, tc.want)
				}
			}
		})
	}
}

// mcpc login SERVER and logout SERVER: one HTTP server.
func TestLoginArgs(t *testing.T) {
	for _, verb := range []string{"login", "logout"} {
		t.Run(verb, func(t *testing.T) {
			checkWords(t, []wordCase{
				{name: "a server", args: []string{"gh"}, got: "gh"},
				{name: "no server", err: "mcpc " + verb + " takes exactly one SERVER", exit: 2},
				{name: "two", args: []string{"a", "b"}, err: "mcpc " + verb + " takes exactly one SERVER", exit: 2},
				{name: "--stdio", adhoc: stdioTarget, err: "mcpc " + verb + " applies to HTTP servers, not --stdio commands", exit: 2},
			}, func(g *globals, args []string) (string, error) { return oneServer(g, args, verb) })
		})
	}
}

// mcpc trust [FILE] and untrust [FILE]: the file named, or the project's.
func TestTrustArgs(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(project, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".mcp.json"), []byte(`{"mcpServers":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, cwd string
		args      []string
		want, err string
		exit      int
	}{
		{"a file, relative to the working directory", dir, []string{"x/.mcp.json"}, filepath.Join(dir, "x", ".mcp.json"), "", 0},
		{"none: the project's, found upward", filepath.Join(project, "sub"), nil, filepath.Join(project, ".mcp.json"), "", 0},
		{"none and no project", dir, nil, "", "no .mcp.json found in " + dir + " or above", 3},
		{"two files", dir, []string{"a", "b"}, "", `unexpected argument "b"`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &globals{cwd: tc.cwd}
			g.dirs.Home = dir
			got, err := trustArgs(g, "trust", tc.args)
			if msg, exit := refused(t, err); msg != tc.err || exit != tc.exit {
				t.Fatalf("error %q (exit %d), want %q (exit %d)", msg, exit, tc.err, tc.exit)
			}
			if got != tc.want {
				t.Errorf("trustArgs(%q) = %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}

// mcpc session start's SERVER and --idle, stop's NAME... or --all, logs'
// NAME.
func TestSessionArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		idle time.Duration
		err  string
	}{
		{"a server, the default idle", []string{"ev"}, 30 * time.Minute, ""},
		{"--idle 0: until stopped", []string{"ev"}, 0, ""},
		{"no server", nil, time.Minute, missingServer},
		{"a word too many", []string{"ev", "x"}, time.Minute, `unexpected argument "x"`},
		{"--idle negative", []string{"ev"}, -time.Second, "--idle cannot be negative"},
		{"--idle below the floor", []string{"ev"}, time.Millisecond, "--idle 1ms is below the floor of 1s: a session must outlast a call"},
	} {
		t.Run("start/"+tc.name, func(t *testing.T) {
			server, err := sessionStartArgs(&globals{}, tc.args, tc.idle)
			if msg, exit := refused(t, err); msg != tc.err || (tc.err != "") != (exit == 2) {
				t.Fatalf("error %q (exit %d), want %q (exit 2)", msg, exit, tc.err)
			}
			if tc.err == "" && server != tc.args[0] {
				t.Errorf("server %q", server)
			}
		})
	}
	for _, tc := range []struct {
		name  string
		names []string
		all   bool
		err   string
	}{
		{"names", []string{"a", "b"}, false, ""},
		{"--all", nil, true, ""},
		{"neither", nil, false, "missing NAME"},
		{"both", []string{"a"}, true, "give session names or --all, not both"},
	} {
		t.Run("stop/"+tc.name, func(t *testing.T) {
			if msg, exit := refused(t, sessionStopArgs(tc.names, tc.all)); msg != tc.err || (tc.err != "") != (exit == 2) {
				t.Errorf("error %q (exit %d), want %q (exit 2)", msg, exit, tc.err)
			}
		})
	}
	checkWords(t, []wordCase{
		{name: "logs/a name", args: []string{"ev"}, got: "ev"},
		{name: "logs/none", err: "give one session's name", exit: 2},
		{name: "logs/two", args: []string{"a", "b"}, err: "give one session's name", exit: 2},
	}, func(_ *globals, args []string) (string, error) { return sessionLogsArgs(args) })
}

// mcpc config remove NAME; config add NAME URL | NAME -- COMMAND; config
// import [APP|FILE]; and the commands that take no word or one (config,
// session list, man; help [TOPIC]).
func TestConfigArgs(t *testing.T) {
	checkWords(t, []wordCase{
		{name: "remove/a name", args: []string{"ev"}, got: "ev"},
		{name: "remove/none", err: "missing NAME", exit: 2},
		{name: "remove/two", args: []string{"a", "b"}, err: `unexpected argument "b"`, exit: 2},
	}, func(_ *globals, args []string) (string, error) { return configRemoveArgs(args) })
	checkWords(t, []wordCase{
		{name: "add/a URL", args: []string{"web", "https://x.example/mcp"}, got: "web https://x.example/mcp"},
		{name: "add/a command", adhoc: config.AdHoc{Argv: []string{"srv", "-v"}}, args: []string{"local"}, got: "local srv [-v]"},
		{name: "add/--stdio", adhoc: stdioTarget, args: []string{"local"}, got: "local srv [--flag]"},
		{name: "add/none", err: "missing NAME", exit: 2},
		{name: "add/no URL nor command", args: []string{"web"}, err: "missing the server's URL or command", exit: 2},
		{name: "add/not a URL", args: []string{"web", "x.example"}, err: `"x.example" is not an http(s) URL`, exit: 2},
		{name: "add/a word too many", args: []string{"web", "https://x.example/mcp", "z"}, err: `unexpected argument "z"`, exit: 2},
		{name: "add/a URL and a command", adhoc: stdioTarget, args: []string{"web", "https://x.example/mcp"}, err: "give either a URL or a command, not both", exit: 2},
	}, func(g *globals, args []string) (string, error) {
		name, srv, err := config.ParseAdd(args, nil, g.adhoc)
		if err != nil {
			return "", err
		}
		if srv.URL != "" {
			return name + " " + srv.URL, nil
		}
		return name + " " + srv.Command + " " + sprint(srv.Args), nil
	})
	checkWords(t, []wordCase{
		{name: "import/an app", args: []string{"claude"}, got: "claude"},
		{name: "import/every app", got: ""},
		{name: "import/two", args: []string{"a", "b"}, err: `unexpected argument "b"`, exit: 2},
	}, func(_ *globals, args []string) (string, error) {
		var im config.Import
		err := im.SetArgs(args, nil)
		return im.Arg, err
	})
	for _, tc := range []struct {
		name string
		args []string
		n    int
		err  string
	}{
		{"config, session list, man: none", nil, 0, ""},
		{"config, session list, man: a word", []string{"x"}, 0, `unexpected argument "x"`},
		{"help: a topic", []string{"exit-codes"}, 1, ""},
		{"help: two topics", []string{"a", "b"}, 1, `unexpected argument "b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg, exit := refused(t, noMoreThan(tc.args, tc.n, "")); msg != tc.err || (tc.err != "") != (exit == 2) {
				t.Errorf("error %q (exit %d), want %q (exit 2)", msg, exit, tc.err)
			}
		})
	}
}

// mcpc completion SHELL.
func TestCompletionArgs(t *testing.T) {
	checkWords(t, []wordCase{
		{name: "bash", args: []string{"bash"}, got: "script"},
		{name: "powershell", args: []string{"powershell"}, got: "script"},
		{name: "none", err: "name one shell", exit: 2},
		{name: "two", args: []string{"bash", "zsh"}, err: "name one shell", exit: 2},
		{name: "unknown", args: []string{"tcsh"}, err: `no completion script for "tcsh"`, exit: 2},
	}, func(_ *globals, args []string) (string, error) {
		s, err := completionArgs(args)
		if s != "" {
			s = "script"
		}
		return s, err
	})
}

func sprint(v any) string { return fmt.Sprint(v) }
