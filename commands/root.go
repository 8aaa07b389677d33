package commands

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mcpc-dev/mcpc/client/conn"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/cliflags"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/termui"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// state carries what Main knows into the actions. No field is written
// after Main builds it: what changes during a run is behind the progress
// display made with it.
type state struct {
	env      Env
	dashArgs []string
	// progress shows the progress of the request being run, if any.
	progress *termui.ProgressDisplay
	// secrets are what the invocation sends that stderr must not show.
	secrets *redaction.Set
	// argv is the command line as given (a session's holder is started
	// with it); holder, in a holder, is where its report to the starter
	// goes (client.Connector.HoldSession).
	argv   []string
	holder io.Writer
}

// globals are the options every subcommand shares, read from flags once.
type globals struct {
	mode           format.Mode
	jsonFlag       bool
	query          string
	maxBytes       int
	maxLines       int
	timeout        time.Duration
	connectTimeout time.Duration
	// connectTimeoutSet says the flag was given, so it beats a server's
	// "timeout" from config.
	connectTimeoutSet bool
	configFiles       []string
	adhoc             config.AdHoc
	serverStderr      string
	// serverStderrSet says --server-stderr was given, so it beats a
	// server's "serverStderr" from config.
	serverStderrSet bool
	cwd             string
	dirs            config.Dirs
	verbose         bool
	noCache         bool
	noFilter        bool // list's and call's --no-filter: includeTools/excludeTools hide nothing
	probeTimeout    time.Duration
	transport       string // --transport: an HTTP server's transport pin
	maxMessage      int64  // 0: the server's "maxMessage" or the default
	// idleTimeout bounds a request the server is silent on: --idle-timeout,
	// else the default unless --timeout was given.
	idleTimeout time.Duration
	strict      bool
	input       *client.Answers
	// noSession bypasses a live session (--no-session).
	noSession bool
	// record is --record FILE ("": none), recordMax --record-max;
	// recorder, once serverAction opened it, what records into FILE.
	record    string
	recordMax int64
	recorder  *transport.Recorder
	// reprobe is set by mcpc reconnect: the era is probed afresh, what was
	// remembered about the server forgotten (conn.ConnectOptions.Reprobe).
	reprobe bool
}

const (
	catOutput     = "Output"
	catConnection = "Connection"
)

func newRoot(st *state) *cli.Command {
	root := &cli.Command{
		Name:  "mcpc",
		Usage: "a scriptable command-line client for the Model Context Protocol",
		UsageText: "mcpc list " + listUsage() + ` | list --check [SERVER...]
mcpc ping SERVER | grep PATTERN [SERVER...]
mcpc call SERVER TOOL [key=value | key:=json ...] [--args JSON|@FILE|-]
mcpc read SERVER URI
mcpc prompt SERVER NAME [key=value ...]
mcpc skills SERVER | skills get SERVER NAME [--out DIR]
mcpc reconnect SERVER
mcpc snapshot SERVER > FILE | diff SERVER SNAPSHOT | diff OLD NEW
mcpc task get|result|cancel SERVER TASK_ID | task list SERVER
mcpc session start SERVER [--idle DURATION] | session list | session stop NAME... | session logs NAME
mcpc login SERVER | logout SERVER
mcpc config | trust [FILE] | untrust [FILE] | man | completion SHELL
mcpc help [COMMAND | TOPIC]   (topics: exit-codes, config, auth, sessions, agents, ...: 'mcpc help help')

SERVER is a configured name, an https:// URL (http:// on loopback only), or
absent when the server is given as --stdio 'command args' or after --.`,
		Description: `Each invocation connects once to one server, runs one request, prints the
result (text on a terminal, JSON when piped) and exits with a code that says
what happened: see 'mcpc help exit-codes'.

When the server asks for input while a request runs, mcpc answers from
--answer/--answers, then --yes (the schema's defaults), then by asking at the
terminal; otherwise it declines and prints on stderr what was asked and the
--answer flags that would answer it. A URL the server asks you to visit is
printed, never opened. Server log messages go to stderr (--log-level).`,
		Reader:          st.env.Stdin,
		Writer:          st.env.Stdout,
		ErrWriter:       st.env.Stderr,
		HideHelpCommand: true,
		ExitErrHandler:  func(context.Context, *cli.Command, error) {},
		OnUsageError: func(_ context.Context, _ *cli.Command, err error, _ bool) error {
			return usagef("run 'mcpc --help' for usage", "%s", err)
		},
		Flags: append(globalFlags(st.env.Getenv),
			&cli.BoolFlag{Name: "version", Local: true, Usage: "print the version, commit, Go version and MCP revisions"}),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Bool("version") {
				return printVersion(st.env.Stdout)
			}
			if cmd.Args().Len() > 0 {
				return usagef("run 'mcpc --help' for the list of commands", "unknown command %q", cmd.Args().First())
			}
			return cli.ShowRootCommandHelp(cmd)
		},
		Commands: rootCommands(st),
	}
	setHelp(root)
	return root
}

// globalFlags are the shared flags; a flag an environment variable sets
// reads it through getenv (the invocation's Env), never from the process:
// a variable in the shell that runs a test must not reach the test.
func globalFlags(getenv func(string) string) []cli.Flag {
	return append([]cli.Flag{
		&cli.BoolFlag{Name: "json", Category: catOutput, Usage: "print JSON (the default when stdout is not a terminal)"},
		&cli.BoolFlag{Name: "text", Category: catOutput, Usage: "print text (the default on a terminal)"},
		&cli.StringFlag{Name: "query", Aliases: []string{"q"}, Category: catOutput, Usage: "select part of the JSON result with a gjson `PATH`"},
		&cli.IntFlag{Name: "max-bytes", Category: catOutput, Value: format.DefaultMaxBytes, Usage: "print at most `N` bytes inline; the full result goes to a file (0: no limit)"},
		&cli.IntFlag{Name: "max-lines", Category: catOutput, Value: format.DefaultMaxLines, Usage: "print at most `N` lines inline (0: no limit)"},
		&cli.DurationFlag{Name: "timeout", Category: catConnection, Sources: envVars(getenv, "MCPC_TIMEOUT"), Usage: "limit the whole invocation to `DURATION` (0: no limit)"},
		&cli.DurationFlag{Name: "connect-timeout", Category: catConnection, Value: conn.DefaultConnectTimeout, DefaultText: units.DurationText(conn.DefaultConnectTimeout), Usage: "limit server start-up and handshake to `DURATION`"},
		&cli.StringSliceFlag{Name: "config", Category: catConnection, TakesFile: true, Usage: "read servers from `FILE` too (repeatable; also MCPC_CONFIG)"},
		&cli.StringFlag{Name: "stdio", Category: catConnection, Usage: "run the server `COMMAND` (split like a shell would, never run by one)"},
		&cli.StringSliceFlag{Name: "header", Aliases: []string{"H"}, Category: catConnection, Usage: "send an HTTP `HEADER` written as 'Name: value' (repeatable)"},
		&cli.StringFlag{Name: "bearer-env", Category: catConnection, Usage: "send the token in environment variable `VAR` as a bearer token"},
		&cli.StringFlag{Name: "protocol", Category: catConnection, Usage: "protocol `VERSION`: auto, 2026-07-28, 2025-11-25 or 2025-06-18"},
		&cli.StringFlag{Name: "transport", Category: catConnection, Usage: "an HTTP server's `TRANSPORT`: auto (Streamable HTTP, falling back to HTTP+SSE), http or sse (per server: \"type\")"},
		&cli.StringFlag{Name: "server-stderr", Category: catConnection, Value: "show", Usage: "a stdio server's stderr: show, hide, or append to `FILE`"},
		&cli.DurationFlag{Name: "probe-timeout", DefaultText: units.DurationText(conn.DefaultProbeTimeout), Category: catConnection, Usage: "wait at most `DURATION` for a stdio server to answer the server/discover probe (per server: \"probeTimeout\")"},
		&cli.DurationFlag{Name: "idle-timeout", DefaultText: units.DurationText(transport.DefaultIdleTimeout) + ", none when --timeout is given", Category: catConnection, Usage: "give up on a request when the server sends nothing for `DURATION`; progress resets it (0: no limit)"},
		&cli.StringFlag{Name: "max-message", Category: catConnection, Usage: "accept messages from the server of up to `SIZE` (bytes, or e.g. 128MiB; default " + units.SizeText(transport.DefaultMaxMessage) + "; per server: \"maxMessage\")"},
		&cli.StringFlag{Name: "record", Category: catConnection, TakesFile: true, Usage: "record every message to and from the server in `FILE`, as JSON Lines with secrets redacted (mcpc help record)"},
		&cli.StringFlag{Name: "record-max", Category: catConnection, Usage: "stop a --record file at `SIZE` with a note (default " + units.SizeText(transport.DefaultRecordMax) + ")"},
		&cli.BoolFlag{Name: "no-session", Category: catConnection, Usage: "start the server for this invocation even when a session holds it"},
		&cli.BoolFlag{Name: "no-cache", Category: catConnection, Usage: "do not answer requests from results cached under the server's ttlMs hint"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Category: catOutput, Usage: "trace each request, response, cache and era decision on stderr"},
		&cli.BoolFlag{Name: "strict", Category: catOutput, Usage: "fail (exit 5) when structuredContent does not match the tool's outputSchema; with mcpc diff, exit 1 on any change"},
	}, inputFlags()...)
}

// envVars is cli.EnvVars read through getenv. An empty value is no value,
// as checkRootEnv takes it.
func envVars(getenv func(string) string, keys ...string) cli.ValueSourceChain {
	var c cli.ValueSourceChain
	for _, k := range keys {
		c.Chain = append(c.Chain, envSource{key: k, getenv: getenv})
	}
	return c
}

// envSource is one variable of envVars; as cli.EnvVar's, it is an
// environment variable to help and GetEnvVars (cli.EnvValueSource).
type envSource struct {
	key    string
	getenv func(string) string
}

func (e envSource) Lookup() (string, bool) {
	v := e.getenv(e.key)
	return v, v != ""
}
func (e envSource) IsFromEnv() bool  { return true }
func (e envSource) Key() string      { return e.key }
func (e envSource) String() string   { return fmt.Sprintf("environment variable %q", e.key) }
func (e envSource) GoString() string { return fmt.Sprintf("envSource{key:%q}", e.key) }

// readGlobals validates the shared flags before any I/O happens.
func (st *state) readGlobals(cmd *cli.Command) (*globals, error) {
	f := cliflags.Of(cmd)
	g := flagGlobals(f, st.dashArgs)
	out, err := format.Flags{JSON: g.jsonFlag, Text: f.Bool("text"), Query: g.query, MaxBytes: g.maxBytes, MaxLines: g.maxLines}.Options(st.env.StdoutTTY)
	if err != nil {
		return nil, err
	}
	g.mode, g.maxBytes, g.maxLines = out.Mode, out.MaxBytes, out.MaxLines
	if err := g.readConnection(f); err != nil {
		return nil, err
	}
	g.configFiles = append(g.configFiles, config.EnvFiles(st.env.Getenv)...)
	cwd, err := st.env.Getwd()
	if err != nil {
		return nil, fmt.Errorf("cannot determine the working directory: %w", err)
	}
	g.cwd = cwd
	g.dirs = config.DirsFrom(st.env.Getenv)
	if g.input, err = readInput(cmd, f, st.env.Stdin, cwd); err != nil {
		return nil, err
	}
	return g, nil
}

// flagGlobals is what the shared flags say, as given: readGlobals checks
// it. dashArgs are the words after a lone "--".
func flagGlobals(f cliflags.Index, dashArgs []string) *globals {
	return &globals{
		jsonFlag:          f.Bool("json"),
		query:             f.String("query"),
		maxBytes:          f.Int("max-bytes"),
		maxLines:          f.Int("max-lines"),
		timeout:           f.Duration("timeout"),
		connectTimeout:    f.Duration("connect-timeout"),
		connectTimeoutSet: f.IsSet("connect-timeout"),
		configFiles:       f.StringSlice("config"),
		serverStderr:      f.String("server-stderr"),
		verbose:           f.Bool("verbose"),
		noCache:           f.Bool("no-cache"),
		noSession:         f.Bool("no-session"),
		noFilter:          f.Bool("no-filter"),
		probeTimeout:      f.Duration("probe-timeout"),
		transport:         f.String("transport"),
		strict:            f.Bool("strict"),
		record:            f.String("record"),
		serverStderrSet:   f.IsSet("server-stderr"),
		adhoc: config.AdHoc{
			Stdio:     f.String("stdio"),
			Argv:      dashArgs,
			Headers:   f.StringSlice("header"),
			BearerEnv: f.String("bearer-env"),
			Protocol:  f.String("protocol"),
		},
	}
}

// readConnection reads and checks the flags that shape a connection:
// timeouts, --max-message, --protocol and --transport.
func (g *globals) readConnection(f cliflags.Index) (err error) {
	g.idleTimeout, g.maxMessage, err = client.ConnectFlags{
		Timeout: g.timeout, ConnectTimeout: g.connectTimeout, ProbeTimeout: g.probeTimeout,
		IdleTimeout: f.Duration("idle-timeout"), IdleSet: f.IsSet("idle-timeout"), TimeoutSet: f.IsSet("timeout"),
		MaxMessage: f.String("max-message"), Protocol: g.adhoc.Protocol, Transport: g.transport,
	}.Check()
	if err == nil && f.IsSet("record-max") {
		if g.recordMax, err = units.ParseSize(f.String("record-max")); err != nil {
			err = usagef("", "--record-max: %v", err)
		}
	}
	return err
}

// withTimeout applies --timeout to the whole invocation.
func (g *globals) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if g.timeout > 0 {
		return context.WithTimeout(ctx, g.timeout)
	}
	return context.WithCancel(ctx)
}

// loadConfig reads every config source.
func (g *globals) loadConfig() (*config.Config, error) {
	return config.Load(config.LoadOptions{Dirs: g.dirs, Cwd: g.cwd, ConfigFiles: g.configFiles})
}

// rootCommands are mcpc's commands, in the order help lists them.
func rootCommands(st *state) []*cli.Command {
	return []*cli.Command{
		listCommand(st), callCommand(st), readCommand(st), promptCommand(st), pingCommand(st),
		watchCommand(st), serveCommand(st), mockCommand(st), replayCommand(st),
		grepCommand(st), skillsCommand(st), reconnectCommand(st), snapshotCommand(st), diffCommand(st),
		taskCommand(st), sessionCommand(st), loginCommand(st), logoutCommand(st), configCommand(st),
		discoverCommand(st), cardCommand(st), trustCommand(st, true), trustCommand(st, false),
		manCommand(st), completionCommand(st), helpCommand(st), completeCommand(st),
	}
}
