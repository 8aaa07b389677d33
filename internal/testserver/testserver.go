// Package testserver is the deterministic MCP server that mcpc's end-to-end
// tests and README demo talk to. It serves stdio or Streamable HTTP, can act
// as a 2026-07-28 or a pre-2026 server, and can misbehave on request (crash,
// write garbage, hang, die on server/discover, leave a grandchild behind) so
// that tests can pin how mcpc copes with each failure.
package testserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Identity reported to clients; tests pin these.
const (
	serverName    = "mcpc-testserver"
	serverVersion = "1.0.0"
)

// legacyVersion is the only version a --legacy server negotiates;
// modernVersion the only one a --modern-only server speaks.
const (
	legacyVersion = "2025-11-25"
	modernVersion = "2026-07-28"
)

// Fault modes accepted by --fault.
const (
	faultCrash          = "crash"
	faultGarbage        = "garbage"
	faultHang           = "hang"
	faultExitOnDiscover = "exit-on-discover"
	faultSilentDiscover = "silent-discover"
	faultNoisyDiscover  = "noisy-discover"
	faultSpawnChild     = "spawn-child"
	faultSpawnDaemon    = "spawn-daemon"
	faultOddResultType  = "odd-result-type"
	faultNeverAnswer    = "never-answer"
	faultWrongID        = "wrong-id"
	faultDeep           = "deep"
	faultWedged         = "wedged"
	faultFlood          = "flood"
	faultHTMLPage       = "html-page"
	faultEmptyOK        = "empty-ok"
	faultNotJSONRPC     = "not-jsonrpc"
)

var faultModes = []string{
	faultCrash, faultGarbage, faultHang, faultExitOnDiscover, faultSilentDiscover, faultNoisyDiscover, faultSpawnChild, faultSpawnDaemon,
	faultOddResultType, faultNeverAnswer, faultWrongID, faultDeep, faultWedged, faultFlood,
	faultHTMLPage, faultEmptyOK, faultNotJSONRPC,
	faultSSEFields, faultSSEComments, faultSSELongLine,
}

// floodRequests is how many ping requests --fault flood sends.
const floodRequests = 200000

// deepNesting is how deeply --fault deep nests its answer: past the
// 10000 levels Go's JSON decoder accepts.
const deepNesting = 10001

// What the faults write; tests pin these.
const (
	garbageOutput        = "this is not json\nneither {is this\n"
	crashMessage         = "testserver: crashing"
	exitOnDiscoverNotice = "testserver: exiting on server/discover"
)

const (
	// idleFlag (hidden) runs the program as the spawn-child grandchild.
	idleFlag = "--idle"
	// idleLimit only stops a grandchild leaked by a broken test run from
	// living for ever.
	idleLimit = 10 * time.Minute
	// shutdownGracePeriod bounds the HTTP shutdown after a signal.
	shutdownGracePeriod = 3 * time.Second
)

const usage = `usage: testserver [flags]

Serves a deterministic MCP test server over stdio (default) or Streamable HTTP.

flags:
  --http ADDR          serve Streamable HTTP at http://ADDR/mcp (e.g. 127.0.0.1:0)
  --url-file FILE      with --http: write the server URL to FILE once listening
  --sse                with --http: serve the 2024-11-05 HTTP+SSE transport at /mcp
  --sse-endpoint URL   with --http: an HTTP+SSE server that announces URL as
                       its message endpoint and serves nothing else
  --stateless          with --http: stateless mode (2026-07-28 style)
  --legacy             act as a pre-2026 server: server/discover is an unknown
                       method (-32601) and only 2025-11-25 is negotiated
  --page-size N        items per page of list results (default 0: the SDK's 1000)
  --fault MODE         misbehave: crash, garbage, hang, exit-on-discover,
                       silent-discover, noisy-discover (as the Python SDK
                       does: a 2025 server that writes a long validation
                       warning to stderr for server/discover and answers
                       it -32602; stdio), spawn-child, spawn-daemon (setsid),
                       odd-result-type (tool results carry a resultType no
                       revision defines), never-answer (tool calls are
                       accepted and never answered), wrong-id (tool calls
                       are answered with an id the client never sent; stdio),
                       deep (tool calls are answered with JSON nested 10001
                       levels deep; stdio), wedged (serves, but ignores
                       SIGTERM and the end of its input: only SIGKILL
                       stops it; stdio), flood (a tool call is answered with
                       200000 ping requests and the server stops reading
                       its input; stdio), html-page, empty-ok, not-jsonrpc
                       (HTTP: the standalone GET is answered 405, and
                       tools/list, as a proxy or sign-in page in front of
                       the server would, with a 200 HTML page, an empty
                       200, or 200 JSON that is not JSON-RPC),
                       sse-fields, sse-comments, sse-long-line (HTTP: a
                       tool call, or with --sse the GET, is answered with
                       an event stream that never ends an event: field
                       lines, comment lines, or one endless id: line)
  --pid-file FILE      write "server PID" (and "child PID" with spawn-child)
  --start-log FILE     append "started PID" each time a server starts
  --cancel-file FILE   append "started TOOL" when sleep begins and
                       "cancelled TOOL" when the client cancels it
  --stderr-line TEXT   write TEXT to stderr at startup
  --stderr-bytes N     write N bytes of chatter to stderr at startup
  --require-bearer TOK with --http: answer 401 unless "Authorization: Bearer TOK"
  --refuse-file FILE   with --http: while FILE exists, every request is answered
                       with the HTTP status it holds, as a server that stopped
                       accepting the client would: 401 (the token revoked:
                       an invalid_token challenge), 403 (an insufficient_scope
                       challenge), or any other (e.g. 500)
  --forget-file FILE   with --http: when FILE appears, every session so far is
                       forgotten (404 to its Mcp-Session-Id), as a restart
                       forgets them; FILE is removed
  --host-only NAME     with --http: answer a request whose Host is not NAME
                       (and the port) 403 "Access is only allowed at
                       NAME:PORT", with no content type and no challenge,
                       as Playwright MCP does
  --redirect TARGET    with --http: answer 307 to TARGET at /mcp; a path TARGET
                       (e.g. /moved) is served by the MCP handler itself
  --header-log FILE    with --http: append "METHOD PATH auth=… x-token=…" per request
  --echo-env VAR       serve secrets: a tool that quotes $VAR and the call's
                       Authorization and X-Token headers back, in its result
                       (or, with as=error, in a JSON-RPC error), as a careless
                       server quotes what reaches it
  --modern-only        speak 2026-07-28 only: initialize is refused (-32022)
  --ttl MS             mark cacheable results (discover, lists, reads) fresh for MS
  --request-log FILE   append the method of every JSON-RPC request received
  --session-log FILE   append "METHOD session=ID" per JSON-RPC request: the MCP
                       session (Mcp-Session-Id over HTTP) it came in
  --notify N           send N notifications before each tool result (stdio)
  --notify-kind KIND   log (notifications/message, the default) or progress
  --notify-on METHOD   send the --notify notifications before the answer to
                       METHOD requests (default tools/call): logging/setLevel
                       floods a watch of the logs, which calls nothing
  --branchy            also serve branchy, whose schemas branch exponentially
  --hints              annotate echo and add readOnlyHint: true (serve --read-only)
  --tools N            serve N generated tools more (tool-0 …), for huge lists (stdio)
  --deep-schema N      also serve the tool deep, whose inputSchema nests N
                       levels of array items (stdio)
  --any-host           with --http: accept any Host header (no DNS-rebinding guard)
  --start-delay D      wait D before serving, as an npx- or uvx-launched server does
  --busy-once METHOD   with --http: answer the first METHOD request 503 Busy
  --retry-after V      the Retry-After of that 503 (default 1)
  --cut-stream N       with --http: number the events (an event store) and cut
                       the connection halfway through the Nth message of the
                       first standalone GET stream, once: a client resumes
                       with Last-Event-ID and is sent that event again
  --ask                also offer the tools, a prompt and a resource that ask
                       the client for input (ask, ask-*, test://ask), and log
  --logging            declare the logging capability (for logging/setLevel)
  --completions        answer completion/complete: greet's name, the item
                       template's id
  --completion-values FILE
                       answer greet's name from FILE, a JSON object of lists
                       of values chosen by the "greeting" already given
  --completion-flood BYTES
                       answer every completion/complete with values of 100
                       bytes, about BYTES of them (stdio)
  --tasks              speak the 2026-07-28 tasks extension: the task-* tools
                       run as tasks (steps, fail, endless, expire, ask)
  --skills             serve the skills extension: skills/list, skills/get,
                       resources/directory/read and skill:// files, one skill
                       per way a skill can be right or wrong (skills.go)
  --no-directory-read  with --skills: declare no directoryRead
  --signals            also serve the error and retry signals' tools (signals.go):
                       limited (SEP-3304 -32023, over HTTP a 429), flaky and
                       charge (SEP-3313 toolFailure), each echoing the SEP-3182
                       idempotencyKey it was sent
  --events FILE        serve the events extension's poll delivery (events.go):
                       events/list and events/poll, the events FILE's lines
  --next-poll MS       with --events: the nextPollMs of every poll (1000)
  --heartbeat MS       with --events: a push stream's heartbeat interval (1000);
                       push streams (events_push.go) log to FILE.streams
  --idempotency        declare SEP-3182's tools.idempotency capability (stdio)
  --counter            also serve the tool incr, which returns an in-memory
                       counter (1, 2, 3, …): state that lives as long as
                       the server, for the session tests; and grow, which
                       adds a tool grown-N and tells of the change
  --tools-only         declare and serve tools only: no resources, templates
                       or prompts (as server-filesystem and Playwright MCP)
  --drift              serve the next version of the tools, for schema-drift
                       tests: no huge tool, echo's repeat argument required,
                       image titled "PNG images"
  --huge-escapes       colour the line numbers of the huge tool's text
`

// options holds the parsed command line.
type options struct {
	counter     bool   // --counter: serve incr
	echoEnv     string // --echo-env: serve secrets, quoting this variable
	httpAddr    string
	urlFile     string
	stateless   bool
	legacy      bool
	pageSize    int
	fault       string
	pidFile     string
	startLog    string // --start-log: a line appended per server start
	cancelFile  string
	stderrLine  string
	stderrBytes int    // --stderr-bytes: chatter written to stderr at startup
	bearer      string // --require-bearer: HTTP requests need this token
	redirect    string // --redirect: /mcp answers 307 to this target
	hostOnly    string // --host-only: other Host headers are answered 403
	refuseFile  string // --refuse-file: while it exists, its status answers
	forgetFile  string // --forget-file: its appearance forgets the sessions
	headerLog   string // --header-log: where requests' credentials are recorded
	modernOnly  bool   // --modern-only: 2026-07-28 only
	ttlMs       int    // --ttl: ttlMs on cacheable results
	requestLog  string // --request-log: one line per request method
	sessionLog  string // --session-log: one line per request, with its MCP session
	// --sse: serve the 2024-11-05 HTTP+SSE transport at /mcp instead;
	// --sse-endpoint URL: announce URL as its message endpoint, serve
	// nothing else.
	sse         bool
	sseEndpoint string
	anyHost     bool // --any-host: no DNS-rebinding protection
	startDelay  time.Duration
	busyOnce    string // --busy-once: the first such request gets 503
	retryAfter  string // --retry-after: its Retry-After
	cutStream   int    // --cut-stream: the standalone stream's event to cut
	ask         bool
	logging     bool
	completions bool         // --completions: answer completion/complete
	notify      int          // --notify N: N notifications before each tool result (stdio)
	notifyKind  string       // --notify-kind log|progress
	notifyOn    string       // --notify-on: the method the flood precedes
	manyTools   int          // --tools N: N generated tools more (stdio)
	deepSchema  int          // --deep-schema N: the deep tool's nesting (stdio)
	generated   []byte       // their JSON, each followed by a comma
	drift       bool         // --drift: the tools changed (toolEnv.drift)
	toolsOnly   bool         // --tools-only: no resources, templates or prompts
	hugeEscapes bool         // --huge-escapes: toolEnv.hugeEscapes
	branchy     bool         // --branchy: toolEnv.branchy
	hints       bool         // --hints: toolEnv.hints
	callFaults  bool         // --call-faults: the tools not-json, too-deep and endless (faults.go)
	tasks       *taskStore   // --tasks: the 2026-07-28 tasks extension
	skills      *skillStore  // --skills: the skills extension
	signals     *signalStore // --signals: rate limits, failure classes, idempotency keys
	events      *eventsStore // --events: the events extension, poll delivery
	idempotency bool         // --idempotency: declare tools.idempotency (stdio)

	// --completion-values FILE: the greet prompt's names (completeFrom);
	// --completion-flood BYTES: one answer that large (completionFlood).
	completionValues map[string][]string
	completionFlood  int
}

// below answers a request of an extension the SDK does not know (tasks,
// skills); nil when it is the SDK's.
func (o *options) below(req *jsonrpc.Request) *jsonrpc.Response {
	if r := o.tasks.handle(req); r != nil {
		return r
	}
	if r := o.signals.handle(req); r != nil {
		return r
	}
	if r := o.events.handle(req); r != nil {
		return r
	}
	return o.skills.handle(req)
}

// streams are the process's standard streams, injected so that tests can run
// the server in-process over pipes.
type streams struct {
	in  io.ReadCloser
	out io.WriteCloser
	err io.Writer
}

// Main runs the test server with args (excluding the program name) on the
// process's standard streams and returns the exit code: 0 after end of input
// (stdio) or SIGINT/SIGTERM, 2 for bad flags, 1 for other failures. Only the
// crash and exit-on-discover faults end the process themselves, with os.Exit,
// since dying abruptly in the middle of an exchange is what they model.
func Main(args []string) int {
	if len(args) == 1 && args[0] == idleFlag {
		return idle()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	std := streams{in: os.Stdin, out: nopWriteCloser{os.Stdout}, err: os.Stderr}
	return run(ctx, args, std)
}

// idle is the grandchild started by --fault spawn-child: it does nothing
// until it is signalled.
func idle() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	select {
	case <-ctx.Done():
	case <-time.After(idleLimit):
	}
	return 0
}

func run(ctx context.Context, args []string, std streams) int {
	opts, err := parseArgs(args, std.err)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(std.err, "testserver: error: %v\n", err)
			return 2
		}
		return 0
	}

	if opts.stderrLine != "" {
		fmt.Fprintln(std.err, opts.stderrLine)
	}
	writeChatter(std.err, opts.stderrBytes)
	pidLines := fmt.Sprintf("server %d\n", os.Getpid())
	if opts.fault == faultSpawnChild || opts.fault == faultSpawnDaemon {
		pid, err := spawnChild(std, opts.fault == faultSpawnDaemon)
		if err != nil {
			fmt.Fprintf(std.err, "testserver: error: starting child: %v\n", err)
			return 1
		}
		pidLines += fmt.Sprintf("child %d\n", pid)
	}
	if opts.pidFile != "" {
		if err := writeFileAtomic(opts.pidFile, pidLines); err != nil {
			fmt.Fprintf(std.err, "testserver: error: %v\n", err)
			return 1
		}
	}
	if opts.startLog != "" {
		// Appended, where --pid-file is replaced: a script counts how many
		// servers its invocations started (one for a session's many calls).
		if err := appendLine(opts.startLog, fmt.Sprintf("started %d", os.Getpid())); err != nil {
			fmt.Fprintf(std.err, "testserver: error: %v\n", err)
			return 1
		}
	}

	if opts.startDelay > 0 {
		select {
		case <-time.After(opts.startDelay):
		case <-ctx.Done():
			return 0
		}
	}
	if opts.httpAddr != "" {
		return serveHTTP(ctx, opts, std)
	}
	return serveStdio(ctx, opts, std)
}

func parseArgs(args []string, stderr io.Writer) (*options, error) {
	var opts options
	fs := flag.NewFlagSet("testserver", flag.ContinueOnError)
	// Errors are reported once, by run; the usage text only on request.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	x := opts.define(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, usage)
		}
		return nil, err
	}
	if *x.tasks {
		opts.tasks = newTaskStore(opts.cancelFile)
	}
	if *x.completionValues != "" {
		var err error
		if opts.completionValues, err = readCompletionValues(*x.completionValues); err != nil {
			return nil, err
		}
	}
	opts.generated = append(manyTools(opts.manyTools), deepTool(opts.deepSchema)...)
	if *x.skills {
		opts.skills = newSkillStore(&opts, !*x.noDirRead)
	}
	if *x.signals {
		opts.signals = newSignalStore()
	}
	if *x.events != "" {
		opts.events = &eventsStore{file: *x.events, nextPoll: *x.nextPoll, heartbeat: time.Duration(*x.heartbeat) * time.Millisecond}
	}
	if err := opts.check(*x.tasks, fs.Args()); err != nil {
		return nil, err
	}
	return &opts, nil
}

// moreFlags are the flags that do not set an option as they are.
type moreFlags struct {
	completionValues         *string
	tasks, skills, noDirRead *bool
	signals                  *bool
	events                   *string
	nextPoll, heartbeat      *int64
}

// define defines on fs the flags that set o's options, and returns the
// others.
func (o *options) define(fs *flag.FlagSet) moreFlags {
	var x moreFlags
	fs.StringVar(&o.httpAddr, "http", "", "")
	fs.StringVar(&o.urlFile, "url-file", "", "")
	fs.BoolVar(&o.stateless, "stateless", false, "")
	fs.BoolVar(&o.sse, "sse", false, "")
	fs.StringVar(&o.sseEndpoint, "sse-endpoint", "", "")
	fs.BoolVar(&o.legacy, "legacy", false, "")
	fs.IntVar(&o.pageSize, "page-size", 0, "")
	fs.StringVar(&o.fault, "fault", "", "")
	fs.StringVar(&o.pidFile, "pid-file", "", "")
	fs.StringVar(&o.startLog, "start-log", "", "")
	fs.StringVar(&o.cancelFile, "cancel-file", "", "")
	fs.StringVar(&o.stderrLine, "stderr-line", "", "")
	fs.IntVar(&o.stderrBytes, "stderr-bytes", 0, "")
	fs.StringVar(&o.bearer, "require-bearer", "", "")
	fs.StringVar(&o.redirect, "redirect", "", "")
	fs.StringVar(&o.refuseFile, "refuse-file", "", "")
	fs.StringVar(&o.forgetFile, "forget-file", "", "")
	fs.StringVar(&o.headerLog, "header-log", "", "")
	fs.BoolVar(&o.modernOnly, "modern-only", false, "")
	fs.IntVar(&o.ttlMs, "ttl", 0, "")
	fs.StringVar(&o.requestLog, "request-log", "", "")
	fs.StringVar(&o.sessionLog, "session-log", "", "")
	fs.BoolVar(&o.anyHost, "any-host", false, "")
	fs.DurationVar(&o.startDelay, "start-delay", 0, "")
	fs.StringVar(&o.busyOnce, "busy-once", "", "")
	fs.IntVar(&o.cutStream, "cut-stream", 0, "")
	fs.StringVar(&o.retryAfter, "retry-after", "1", "")
	fs.BoolVar(&o.ask, "ask", false, "")
	fs.BoolVar(&o.logging, "logging", false, "")
	fs.BoolVar(&o.completions, "completions", false, "")
	x.completionValues = fs.String("completion-values", "", "")
	fs.IntVar(&o.completionFlood, "completion-flood", 0, "")
	fs.IntVar(&o.notify, "notify", 0, "")
	fs.StringVar(&o.notifyKind, "notify-kind", notifyLog, "")
	fs.StringVar(&o.notifyOn, "notify-on", "tools/call", "")
	fs.IntVar(&o.manyTools, "tools", 0, "")
	fs.IntVar(&o.deepSchema, "deep-schema", 0, "")
	fs.BoolVar(&o.drift, "drift", false, "")
	fs.BoolVar(&o.toolsOnly, "tools-only", false, "")
	fs.StringVar(&o.hostOnly, "host-only", "", "")
	fs.BoolVar(&o.counter, "counter", false, "")
	fs.StringVar(&o.echoEnv, "echo-env", "", "")
	fs.BoolVar(&o.hugeEscapes, "huge-escapes", false, "")
	fs.BoolVar(&o.branchy, "branchy", false, "")
	fs.BoolVar(&o.hints, "hints", false, "")
	fs.BoolVar(&o.callFaults, "call-faults", false, "")
	x.tasks = fs.Bool("tasks", false, "")
	x.skills = fs.Bool("skills", false, "")
	x.noDirRead = fs.Bool("no-directory-read", false, "")
	x.signals = fs.Bool("signals", false, "")
	x.events = fs.String("events", "", "")
	x.nextPoll = fs.Int64("next-poll", 1000, "")
	x.heartbeat = fs.Int64("heartbeat", 1000, "")
	fs.BoolVar(&o.idempotency, "idempotency", false, "")
	return x
}

// check says which flags cannot go together, which value is wrong, or
// that there are arguments (there should be none).
func (o *options) check(tasks bool, args []string) error {
	switch {
	case tasks && o.legacyMode():
		return errors.New("--tasks is the 2026-07-28 extension: it cannot be combined with --legacy")
	case len(args) > 0:
		return fmt.Errorf("unexpected argument %q", args[0])
	case o.notifyKind != notifyLog && o.notifyKind != notifyProgress:
		return fmt.Errorf("unknown --notify-kind %q (want log or progress)", o.notifyKind)
	case o.stdioOnly() && o.httpAddr != "":
		return errors.New("--notify, --tools, --deep-schema, --completion-flood and --call-faults work only over stdio")
	case o.pageSize < 0:
		return fmt.Errorf("--page-size must not be negative, got %d", o.pageSize)
	case o.fault != "" && !contains(faultModes, o.fault):
		return fmt.Errorf("unknown --fault %q (want one of %v)", o.fault, faultModes)
	case o.httpAddr == "" && o.httpOnly():
		return errors.New("--url-file, --stateless, --require-bearer, --refuse-file, --forget-file, --redirect, --header-log, --host-only, --sse and --sse-endpoint need --http")
	case o.sse && o.stateless:
		return errors.New("--sse cannot be combined with --stateless: an HTTP+SSE session lives on its stream")
	case o.modernOnly && o.legacyMode():
		return errors.New("--modern-only cannot be combined with --legacy or a legacy fault")
	case o.httpAddr != "" && o.fault == faultGarbage:
		return errors.New("--fault garbage works only over stdio")
	case o.httpAddr == "" && proxyFault(o.fault):
		return fmt.Errorf("--fault %s works only over --http", o.fault)
	}
	return nil
}

// stdioOnly says whether a flag that works only over stdio is set.
func (o *options) stdioOnly() bool {
	return o.notify > 0 || o.manyTools > 0 || o.deepSchema > 0 || o.completionFlood > 0 || o.callFaults
}

// httpOnly says whether a flag that needs --http is set.
func (o *options) httpOnly() bool {
	return o.urlFile != "" || o.stateless || o.bearer != "" || o.refuseFile != "" || o.forgetFile != "" ||
		o.redirect != "" || o.headerLog != "" || o.sse || o.sseEndpoint != "" || o.hostOnly != ""
}

// newServer builds the MCP server with every tool, resource, template and
// prompt the tests rely on.
func newServer(opts *options, std streams) *mcp.Server {
	sopts := &mcp.ServerOptions{
		Instructions: "Deterministic MCP server for mcpc's tests.",
		PageSize:     opts.pageSize,
		// No logging capability (deprecated in 2026-07-28 and unused): the
		// tests pin a small capability set.
		Capabilities: &mcp.ServerCapabilities{},
	}
	if opts.logging {
		//lint:ignore SA1019 2025 clients set the level of a server that declares logging
		sopts.Capabilities.Logging = &mcp.LoggingCapabilities{}
	}
	if opts.legacyMode() {
		sopts.SupportedProtocolVersions = []string{legacyVersion}
	}
	if opts.modernOnly {
		sopts.SupportedProtocolVersions = []string{modernVersion}
	}
	addExtensions(opts, sopts.Capabilities)
	if opts.completions || opts.completionValues != nil || opts.completionFlood > 0 {
		sopts.CompletionHandler = completeFrom(opts.completionValues)
	}
	if opts.ttlMs > 0 {
		sopts.SetCacheable = func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.TTLMs = opts.ttlMs }
	}
	s := mcp.NewServer(&mcp.Implementation{Name: serverName, Version: serverVersion}, sopts)
	if opts.modernOnly && opts.httpAddr == "" {
		s.AddReceivingMiddleware(refuseInitialize)
	}
	if opts.requestLog != "" {
		s.AddReceivingMiddleware(logRequests(opts.requestLog))
	}
	if opts.sessionLog != "" {
		s.AddReceivingMiddleware(logSessions(opts.sessionLog))
	}
	if opts.fault == faultCrash {
		s.AddReceivingMiddleware(crashOnToolCall(std.err))
	}
	addTools(s, &toolEnv{cancelFile: opts.cancelFile, drift: opts.drift, hugeEscapes: opts.hugeEscapes, branchy: opts.branchy, hints: opts.hints})
	if opts.drift {
		s.RemoveTools("huge")
	}
	if opts.counter {
		addCounterTool(s)
	}
	if opts.echoEnv != "" {
		addSecretsTool(s, opts.echoEnv)
	}
	if opts.callFaults {
		addFaultTools(s)
	}
	if opts.tasks != nil {
		addTaskTools(s)
	}
	if opts.signals != nil {
		addSignalTools(s)
	}
	if opts.toolsOnly {
		return s
	}
	if opts.ask {
		addInputTools(s)
		addInputPrompts(s)
	}
	addResources(s)
	if opts.skills != nil {
		addSkillResources(s)
	}
	addPrompts(s)
	return s
}

// legacyMode reports whether the server should look like a pre-2026 one. The
// discover faults model old servers too, so they imply it.
func (o *options) legacyMode() bool {
	return o.legacy || o.fault == faultExitOnDiscover || o.fault == faultSilentDiscover || o.fault == faultNoisyDiscover
}

func serveStdio(ctx context.Context, opts *options, std streams) int {
	if opts.fault == faultHang {
		hang(ctx, std.in)
		return 0
	}
	// The real process uses the SDK's own stdio transport; in-process tests
	// hand us pipes, which the equivalent IOTransport carries.
	var t mcp.Transport = &mcp.IOTransport{Reader: std.in, Writer: std.out}
	if std.in == os.Stdin {
		t = &mcp.StdioTransport{}
	}
	t = &faultTransport{Transport: t, opts: opts, out: std.out, stderr: std.err}
	if opts.fault == faultWedged {
		signal.Ignore(syscall.SIGTERM, os.Interrupt)
		newServer(opts, std).Run(context.Background(), t)
		time.Sleep(idleLimit) // until SIGKILL
		return 0
	}
	err := newServer(opts, std).Run(ctx, t)
	if err != nil && ctx.Err() == nil && !isEOF(err) {
		fmt.Fprintf(std.err, "testserver: error: %v\n", err)
		return 1
	}
	return 0
}

// hang swallows all input and never answers. After end of input it keeps
// waiting, as a wedged server would, so that clients must kill it.
func hang(ctx context.Context, in io.Reader) {
	go io.Copy(io.Discard, in)
	<-ctx.Done()
}

// spawnChild starts the grandchild for --fault spawn-child: the same program
// with --idle, in our process group and holding our standard streams, as a
// wrapper like npx would leave behind.
func spawnChild(std streams, daemon bool) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	// Keep os.Args[0] as argv[0]: inside a testscript binary it selects the
	// registered command, while the path comes from the running executable so
	// that no PATH lookup is involved. No Setpgid: the child must share our
	// process group, which is what a client has to clean up.
	cmd := &exec.Cmd{Path: exe, Args: []string{os.Args[0], idleFlag}}
	if daemon {
		// A daemon leaves our process group and session, and holds none of
		// our pipes: only a subreaper can still find it.
		cmd.SysProcAttr = daemonAttr()
		if err := cmd.Start(); err != nil {
			return 0, err
		}
		go cmd.Wait()
		return cmd.Process.Pid, nil
	}
	if f := osFile(std.in); f != nil {
		cmd.Stdin = f
	}
	if f := osFile(std.out); f != nil {
		cmd.Stdout = f
	}
	if f := osFile(std.err); f != nil {
		cmd.Stderr = f
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	go cmd.Wait() // reap it if it dies while we run
	return cmd.Process.Pid, nil
}

// writeFileAtomic writes data to a temporary file next to name and renames
// it into place, so that a reader polling for name never sees a partial line.
func writeFileAtomic(name, data string) error {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), name); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// appendLine appends one line to name, creating it if needed.
func appendLine(name, line string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, werr := io.WriteString(f, line+"\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, mcp.ErrConnectionClosed)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// osFile returns the file behind a standard stream, or nil when it is not
// one: a child inherits real descriptors (as a wrapper's child would) and
// gets the null device otherwise, never a copying goroutine.
func osFile(v any) *os.File {
	if w, ok := v.(nopWriteCloser); ok {
		v = w.Writer
	}
	f, _ := v.(*os.File)
	return f
}

// logRequests appends each request's method to path, so tests can count
// what reached the server (and what mcpc answered itself).
// logSessions appends each request's method and the MCP session it came
// in (--session-log): over HTTP, a client that keeps its session shows
// one initialize and one id.
func logSessions(path string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			id := ""
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
				id = ss.ID()
			}
			appendLine(path, method+" session="+id)
			return next(ctx, method, req)
		}
	}
}

func logRequests(path string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			line := method
			if r, ok := req.(*mcp.ReadResourceRequest); ok {
				line += " " + r.Params.URI
			}
			if p := req.GetParams(); p != nil && !reflect.ValueOf(p).IsNil() {
				if tp, ok := p.GetMeta()["traceparent"].(string); ok {
					line += " traceparent=" + tp
				}
			}
			appendLine(path, line)
			return next(ctx, method, req)
		}
	}
}

// addExtensions declares the extensions the options serve below the SDK.
func addExtensions(opts *options, caps *mcp.ServerCapabilities) {
	if opts.tasks != nil {
		caps.AddExtension(taskExtension, nil)
	}
	if opts.events != nil {
		caps.AddExtension(eventsExtension, nil)
	}
	if opts.skills != nil {
		caps.AddExtension(skillsExtension, map[string]any{"directoryRead": opts.skills.directoryRead})
	}
}
