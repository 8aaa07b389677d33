package commands

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/creds"
	"github.com/mcpc-dev/mcpc/internal/buildinfo"
	"github.com/mcpc-dev/mcpc/internal/cliflags"
	"github.com/mcpc-dev/mcpc/internal/fail/report"
	"github.com/mcpc-dev/mcpc/internal/profile"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/termui"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Env is everything an invocation takes from its surroundings, injected so
// tests can run commands without touching the real process state.
type Env struct {
	Stdin     io.Reader
	Stdout    io.Writer
	Stderr    io.Writer
	StdoutTTY bool
	// Width is the terminal's width in columns when stdout is one, else 0:
	// text tables are fitted to it and never cut when piped.
	Width int
	// StderrTTY and StderrWidth say the same of stderr, where the live
	// progress line goes.
	StderrTTY   bool
	StderrWidth int
	Getenv      func(string) string
	Environ     func() []string
	Getwd       func() (string, error)
	Now         func() time.Time
	// Keyring holds stored logins; nil means the OS keyring.
	Keyring creds.Store
	// connector reaches servers; nil means the client package (Connect,
	// OpenTasks). Unit tests put fake sessions behind it.
	connector connector
	// Signals, when non-nil, delivers interrupts; Main cancels the
	// invocation on the first one, and stops waiting for its teardown on
	// the second.
	Signals <-chan os.Signal
	// notify, when non-nil, starts the delivery to Signals. Main calls it
	// past the --version shortcut only: os/signal starts a thread of its
	// own, a cost that --version need not pay.
	notify func()
}

// OSEnv is the Env of a real process.
func OSEnv() Env {
	sig := make(chan os.Signal, 2)
	// A reader that goes away (mcpc … | head -1) must not kill mcpc on the
	// spot, leaving its server behind: writes fail with EPIPE instead and
	// the invocation ends through the normal teardown.
	signal.Ignore(syscall.SIGPIPE)
	// Servers' daemonizing grandchildren are re-parented to mcpc, so that
	// teardown can stop them too (Linux; best effort elsewhere).
	transport.BecomeSubreaper()
	tty, width := termui.Width(os.Stdout)
	errTTY, errWidth := termui.Width(os.Stderr)
	return Env{
		Stdin:       os.Stdin,
		Stdout:      os.Stdout,
		Stderr:      os.Stderr,
		StdoutTTY:   tty,
		Width:       width,
		StderrTTY:   errTTY,
		StderrWidth: errWidth,
		Getenv:      os.Getenv,
		Environ:     os.Environ,
		Getwd:       os.Getwd,
		Now:         clock,
		Signals:     sig,
		notify:      func() { signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP) },
	}
}

// rootEnv lists the environment variables the root command's flags read
// (TestVersionShortcut keeps it true): while one is set, --version takes
// the long way, where a malformed value fails as it always did.
var rootEnv = []string{"MCPC_TIMEOUT"}

// versionOnly reports whether the invocation is exactly "mcpc --version"
// with nothing in the environment that could change the answer.
func versionOnly(args []string, getenv func(string) string) bool {
	if len(args) != 2 || args[1] != "--version" {
		return false
	}
	for _, k := range rootEnv {
		if getenv(k) != "" {
			return false
		}
	}
	return true
}

// checkRootEnv checks the variables of rootEnv as their flags would be:
// urfave/cli reads them before any action and returns a bad one as a bare
// error, past OnUsageError, which would be reported as an internal failure.
// Help reads no value, so a line asking for it is not checked.
func checkRootEnv(getenv func(string) string) error {
	if v := getenv("MCPC_TIMEOUT"); v != "" {
		if _, err := time.ParseDuration(v); err != nil {
			return usagef("set MCPC_TIMEOUT to a duration such as 90s or 5m, or unset it", "MCPC_TIMEOUT=%q is not a duration", v)
		}
	}
	return nil
}

// Main runs one invocation and returns its exit code. args includes the
// program name, as os.Args does.
func Main(ctx context.Context, args []string, env Env) int {
	// "mcpc --version", the commonest probe of an installed client, answers
	// before the command tree and its flags are built and before signals
	// are set up: the same output and exit code as the long way, at a
	// smaller start-up cost.
	if versionOnly(args, env.Getenv) {
		return report.Print(env.Stderr, printVersion(env.Stdout), false)
	}
	// A session's guard (transport.Process.Guard) is mcpc only in name:
	// it reads its pipe and stops a process group, and must die of the
	// signals that end a plain process.
	if transport.Guarding(args) {
		return transport.RunGuard(env.Stdin, args)
	}
	if env.notify != nil {
		env.notify()
	}
	// Every secret the invocation sends is registered in one set, and
	// everything printed on stderr passes one redacting writer: a server
	// that quotes a request back cannot put a secret into a log. What is
	// shown is made safe (one line, controls stripped) before that writer:
	// so are the secrets.
	secrets := redaction.NewSet(textsafe.Shown()...)
	ctx = redaction.NewContext(ctx, secrets)
	stderr := redaction.NewWriter(env.Stderr, secrets)
	defer stderr.Flush()
	// A credential helper still running (its request gave up) ends with
	// the invocation.
	defer creds.StopHelpers()
	env.Stderr = stderr
	defer profile.Start(env.Getenv)()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	finished := make(chan struct{})
	defer close(finished)
	again := watchSignals(env.Signals, cancel, finished)
	// Words after a lone "--" are an ad-hoc stdio server command; they are
	// split off before flag parsing so none of them is read as mcpc's own.
	args, holder, err := holderArgs(&env, args)
	if err != nil {
		return report.Print(env.Stderr, err, false)
	}
	argv := args
	args, dashArgs := cliflags.SplitDash(args)
	out := &stdoutWriter{w: env.Stdout}
	env.Stdout = out
	st := &state{env: env, dashArgs: dashArgs, secrets: secrets, argv: argv, holder: holder,
		progress: new(termui.ProgressDisplay)}
	root := newRoot(st)
	// Whether a failure is reported as JSON is decided here, once, as the
	// flag parser will read --json: flag errors come before any action,
	// and a second interrupt comes while the run goroutine may still be
	// reading its flags. --help anywhere asks for help, whatever else the
	// line holds.
	jsonErrors := cliflags.Bool(root, args[1:], "json")
	args = cliflags.HelpArgs(root, args)
	if args[len(args)-1] != "--help" {
		if err := checkRootEnv(env.Getenv); err != nil {
			return report.Print(env.Stderr, err, jsonErrors)
		}
	}
	done := make(chan error, 1)
	go func() {
		_ = growStack()
		done <- root.Run(ctx, args)
	}()
	select {
	case err = <-done:
	case <-again:
		// A second interrupt: the user will not wait for the teardown the
		// first one started. Kill the servers outright and leave.
		transport.KillServers()
		return report.Print(env.Stderr, errInterruptedAgain, jsonErrors)
	}
	if err != nil && context.Cause(ctx) == errInterrupted && !errors.Is(err, errInterrupted) {
		err = errInterrupted
	}
	return report.Print(env.Stderr, out.finish(err), jsonErrors)
}

// watchSignals cancels the invocation on the first signal and closes the
// channel it returns on the second, until finished is closed.
func watchSignals(signals <-chan os.Signal, cancel context.CancelCauseFunc, finished <-chan struct{}) <-chan struct{} {
	again := make(chan struct{})
	if signals == nil {
		return again
	}
	go func() {
		select {
		case <-signals:
			cancel(errInterrupted)
		case <-finished:
			return
		}
		select {
		case <-signals:
			close(again)
		case <-finished:
		}
	}()
	return again
}

// printVersion answers --version: the build, and the revisions spoken
// (every protocol a config may pin but "auto").
func printVersion(w io.Writer) error {
	_, err := io.WriteString(w, buildinfo.Text(slices.DeleteFunc(slices.Clone(config.Protocols), func(p string) bool { return p == "auto" })))
	return err
}
