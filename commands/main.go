package commands

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"golang.org/x/term"
)

// Env is everything an invocation takes from its surroundings, injected so
// tests can run commands without touching the real process state.
type Env struct {
	Stdin     io.Reader
	Stdout    io.Writer
	Stderr    io.Writer
	StdoutTTY bool
	Getenv    func(string) string
	Environ   func() []string
	Getwd     func() (string, error)
	Now       func() time.Time
	// Signals, when non-nil, delivers interrupts; Main cancels the
	// invocation on the first one.
	Signals <-chan os.Signal
}

// OSEnv is the Env of a real process.
func OSEnv() Env {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	// A reader that goes away (mcpc … | head -1) must not kill mcpc on the
	// spot, leaving its server behind: writes fail with EPIPE instead and
	// the invocation ends through the normal teardown.
	signal.Ignore(syscall.SIGPIPE)
	return Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		// golang.org/x/term is the Go team's isatty; none of the chosen
		// libraries offers one, and the output mode depends on it.
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		Getenv:    os.Getenv,
		Environ:   os.Environ,
		Getwd:     os.Getwd,
		Now:       time.Now,
		Signals:   sig,
	}
}

// Version is mcpc's version: set at link time, else from build info.
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// Main runs one invocation and returns its exit code. args includes the
// program name, as os.Args does.
func Main(ctx context.Context, args []string, env Env) int {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if env.Signals != nil {
		go func() {
			select {
			case <-env.Signals:
				cancel(errInterrupted)
			case <-ctx.Done():
			}
		}()
	}
	// Words after a lone "--" are an ad-hoc stdio server command; they are
	// split off before flag parsing so none of them is read as mcpc's own.
	var dashArgs []string
	for i, a := range args {
		if a == "--" {
			dashArgs = append([]string{}, args[i+1:]...)
			args = args[:i]
			break
		}
	}
	st := &state{env: env, dashArgs: dashArgs}
	root := newRoot(st)
	err := root.Run(ctx, args)
	if err != nil && context.Cause(ctx) == errInterrupted && !errors.Is(err, errInterrupted) {
		err = errInterrupted
	}
	if err == nil {
		return ExitOK
	}
	return report(env.Stderr, err, st.jsonErrors)
}
