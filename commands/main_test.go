package commands

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/credentials"

	"github.com/mcpc-dev/mcpc/client/conn"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/tasks"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/creds"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// run calls Main in-process with a fake environment rooted at home.
func run(t *testing.T, home string, tty bool, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	env := Env{
		Stdin:     strings.NewReader(""),
		Stdout:    &stdout,
		Stderr:    &stderr,
		StdoutTTY: tty,
		Getenv:    func(k string) string { return map[string]string{"HOME": home}[k] },
		Environ:   func() []string { return nil },
		Getwd:     func() (string, error) { return home, nil },
		Now:       time.Now,
	}
	code := Main(context.Background(), append([]string{"mcpc"}, args...), env)
	return code, stdout.String(), stderr.String()
}

func TestOutputModeFollowsTerminal(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, ".config", "mcpc", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"s": {"url": "https://s.example/mcp"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	wantText := "NAME  TRANSPORT  STATUS  SOURCE\ns     http       active  " + cfg + "\n"
	wantJSON := `{
  "servers": [
    {
      "name": "s",
      "transport": "http",
      "source": "` + cfg + `",
      "trusted": true,
      "active": true
    }
  ]
}
`
	for _, tc := range []struct {
		tty  bool
		args []string
		want string
	}{
		{true, []string{"list"}, wantText},
		{false, []string{"list"}, wantJSON},
		{true, []string{"list", "--json"}, wantJSON},
		{false, []string{"--text", "list"}, wantText},
	} {
		code, out, errOut := run(t, home, tc.tty, tc.args...)
		if code != 0 || out != tc.want || errOut != "" {
			t.Errorf("tty=%v %v: exit %d\nstdout %q\nwant   %q\nstderr %q", tc.tty, tc.args, code, out, tc.want, errOut)
		}
	}
}

var versionRE = regexp.MustCompile(`^mcpc \S+\ncommit: \S.*\ngo: go1\.\S+ \w+/\w+\nmcp: 2026-07-28, 2025-11-25, 2025-06-18\n$`)

func TestHelpAndVersion(t *testing.T) {
	home := t.TempDir()
	code, out, _ := run(t, home, false, "help", "exit-codes")
	if code != 0 || out != topicText(t, "exit-codes") {
		t.Errorf("help exit-codes: %d %q", code, out)
	}
	code, out, _ = run(t, home, false, "--version")
	if code != 0 || !versionRE.MatchString(out) {
		t.Errorf("--version: %d %q", code, out)
	}
	code, _, errOut := run(t, home, false, "help", "nope")
	if code != 2 || !strings.HasPrefix(errOut, "mcpc: error: no help for \"nope\"\n") {
		t.Errorf("help nope: %d %q", code, errOut)
	}
	code, out, _ = run(t, home, false, "call", "--help")
	if code != 0 || !strings.Contains(out, "--no-validate") {
		t.Errorf("call --help: %d %q", code, out)
	}
}

type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
}

// A closed stdout (mcpc … | head -1) ends the invocation quietly.
func TestClosedStdoutIsQuiet(t *testing.T) {
	home := t.TempDir()
	var stderr strings.Builder
	env := Env{
		Stdin: strings.NewReader(""), Stdout: brokenPipe{}, Stderr: &stderr,
		Getenv:  func(k string) string { return map[string]string{"HOME": home}[k] },
		Environ: func() []string { return nil },
		Getwd:   func() (string, error) { return home, nil },
		Now:     time.Now,
	}
	if code := Main(context.Background(), []string{"mcpc", "config"}, env); code != 0 || stderr.String() != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr.String())
	}
}

// "mcpc --version" skips the command tree; its answer must not change.
func TestVersionShortcut(t *testing.T) {
	env := func(vars map[string]string) (Env, *strings.Builder, *strings.Builder) {
		var stdout, stderr strings.Builder
		return Env{
			Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
			Getenv:  func(k string) string { return vars[k] },
			Environ: func() []string { return nil },
			Getwd:   os.Getwd,
			Now:     time.Now,
		}, &stdout, &stderr
	}
	e, short, _ := env(nil)
	if code := Main(context.Background(), []string{"mcpc", "--version"}, e); code != 0 {
		t.Fatalf("--version: exit %d", code)
	}
	// --version=true is not the shortcut's exact spelling: the long way.
	e, long, _ := env(nil)
	if code := Main(context.Background(), []string{"mcpc", "--version=true"}, e); code != 0 || long.String() != short.String() {
		t.Errorf("--version=true: exit %d, %q; the shortcut printed %q", code, long, short)
	}
	// A variable a root flag reads is still checked.
	e, out, errOut := env(map[string]string{"MCPC_TIMEOUT": "soon"})
	if code := Main(context.Background(), []string{"mcpc", "--version"}, e); code != 2 || out.Len() != 0 ||
		!strings.HasPrefix(errOut.String(), `mcpc: error: MCPC_TIMEOUT="soon" is not a duration`) {
		t.Errorf("MCPC_TIMEOUT=soon --version: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// rootEnv names every variable the root command's flags read.
	var got []string
	for _, f := range newRoot(&state{env: e}).Flags {
		if s, ok := f.(interface{ GetEnvVars() []string }); ok {
			got = append(got, s.GetEnvVars()...)
		}
	}
	if !slices.Equal(got, rootEnv) {
		t.Errorf("root flags read %q; rootEnv says %q", got, rootEnv)
	}
}

// TestHelpDefaultsMatchConstants: every default the help states, read back
// from the help as printed, is the constant that sets it.
func TestHelpDefaultsMatchConstants(t *testing.T) {
	home := t.TempDir()
	help := map[string]string{}
	for _, args := range [][]string{{"--help"}, {"login", "--help"}, {"help", "config"}} {
		code, out, errOut := run(t, home, false, args...)
		if code != 0 || errOut != "" {
			t.Fatalf("mcpc %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
		}
		help[args[0]] = out
	}
	dur := func(s string) (any, error) { return time.ParseDuration(s) }
	size := func(s string) (any, error) { return units.ParseSize(s) }
	num := func(s string) (any, error) { return strconv.Atoi(s) }
	for _, tc := range []struct {
		help  string
		re    string // its group is the stated default
		parse func(string) (any, error)
		want  any
	}{
		{"--help", `--connect-timeout DURATION .*\(default: ([^)]+)\)`, dur, conn.DefaultConnectTimeout},
		{"--help", `--probe-timeout DURATION .*\(default: ([^)]+)\)`, dur, conn.DefaultProbeTimeout},
		{"--help", `--idle-timeout DURATION .*\(default: ([^)]+), none when --timeout is given\)`, dur, transport.DefaultIdleTimeout},
		{"--help", `--max-message SIZE .*; default ([^;]+);`, size, int64(transport.DefaultMaxMessage)},
		{"--help", `--max-bytes N .*\(default: (\d+)\)`, num, format.DefaultMaxBytes},
		{"--help", `--max-lines N .*\(default: (\d+)\)`, num, format.DefaultMaxLines},
		{"login", `Bounded by --timeout \(default ([^)]+)\)`, dur, credentials.DefaultLoginTimeout},
		{"help", `"maxMessage" \(the largest\s+message accepted from the server, bytes or "128MiB"; default ([^)]+)\)`, size, int64(transport.DefaultMaxMessage)},
	} {
		m := regexp.MustCompile(tc.re).FindStringSubmatch(help[tc.help])
		if m == nil {
			t.Errorf("mcpc %s: no match for %s", tc.help, tc.re)
			continue
		}
		got, err := tc.parse(m[1])
		if err != nil || got != tc.want {
			t.Errorf("mcpc %s states the default %q (%v, %v), the code uses %v", tc.help, m[1], got, err, tc.want)
		}
	}
}

// hungKeyring fails every read as a keyring that never answers does.
type hungKeyring struct {
	creds.Store
	gets int
}

func (k *hungKeyring) Get(context.Context, string) ([]byte, error) {
	k.gets++
	return nil, errors.New("the keyring did not answer within 10s (read)")
}

// TestListAsksAFailingKeyringOnce: mcpc list pays a hung keyring's bound
// once, not once per server.
func TestListAsksAFailingKeyringOnce(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, ".config", "mcpc", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {
  "a": {"url": "https://a.example/mcp", "auth": {"type": "oauth"}},
  "b": {"url": "https://b.example/mcp", "auth": {"type": "oauth"}},
  "c": {"url": "https://c.example/mcp"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	kr := &hungKeyring{}
	var stdout, stderr strings.Builder
	env := Env{
		Stdin:   strings.NewReader(""),
		Stdout:  &stdout,
		Stderr:  &stderr,
		Getenv:  func(k string) string { return map[string]string{"HOME": home}[k] },
		Environ: func() []string { return nil },
		Getwd:   func() (string, error) { return home, nil },
		Now:     time.Now,
		Keyring: kr,
	}
	if code := Main(context.Background(), []string{"mcpc", "list", "--text"}, env); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if kr.gets != 1 {
		t.Errorf("the keyring was asked %d times, want 1", kr.gets)
	}
	want := "NAME  TRANSPORT  STATUS  AUTH                 SOURCE\n" +
		"a     http       active  keyring unavailable  " + cfg + "\n" +
		"b     http       active  keyring unavailable  " + cfg + "\n" +
		"c     http       active  -                    " + cfg + "\n"
	if stdout.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), want)
	}
}

// TestEnvOnlyThroughEnv: the variables a flag reads come from the
// invocation's Env, never from the process's environment, so a variable
// in the shell that runs the tests changes nothing (MCPC_TIMEOUT=soon there
// failed a dozen tests of this package), and one in Env is read.
func TestEnvOnlyThroughEnv(t *testing.T) {
	t.Setenv("MCPC_TIMEOUT", "soon")
	f := &fakeServer{tools: echoTools(), runs: map[string]fakeRun{"echo": {run: &tasks.ToolRun{Result: result("hi", false)}}}}
	if code, stdout, stderr := runFake(t, f, "", "call", "--stdio", "fake", "echo", "text=x"); code != 0 || stdout == "" || stderr != "" {
		t.Errorf("with MCPC_TIMEOUT=soon in the process only: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, tc := range []struct {
		env  string
		want time.Duration
	}{{"", 0}, {"90s", 90 * time.Second}} {
		vars := map[string]string{"MCPC_TIMEOUT": tc.env}
		e := Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(k string) string { return vars[k] }}
		root := newRoot(&state{env: e})
		var got time.Duration
		root.Action = func(_ context.Context, cmd *cli.Command) error {
			got = cmd.Duration("timeout")
			return nil
		}
		if err := root.Run(context.Background(), []string{"mcpc"}); err != nil || got != tc.want {
			t.Errorf("Env MCPC_TIMEOUT=%q: --timeout %v (%v), want %v", tc.env, got, err, tc.want)
		}
	}
}
