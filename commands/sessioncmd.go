package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	clientstate "github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
)

// holderCommand is the hidden command line of a session's holder: mcpc
// itself, detached. What it holds comes on its stdin (a --stdio command
// may carry a secret; a command line is visible to every user).
const holderCommand = "__holder"

// defaultSessionIdle is how long a session waits without a request.
const defaultSessionIdle = 15 * time.Minute

func sessionCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:  "session",
		Usage: "hold a server across invocations: start, list, stop",
		Description: `A session keeps one server running between invocations, so that state it
holds (a counter, a browser, a login) survives from one command to the next,
and a server that is slow to start starts once. Every command that names the
server uses the live session (--no-session bypasses it). See 'mcpc help
sessions'.`,
		Commands: []*cli.Command{
			{
				Name:      "start",
				Usage:     "start a session holding SERVER",
				ArgsUsage: "SERVER | --name NAME --stdio 'command args'",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "name", Usage: "the session's `NAME` (needed for a --stdio server)"},
					&cli.DurationFlag{Name: "idle", Value: defaultSessionIdle, DefaultText: durationText(defaultSessionIdle), Usage: "end the session after `DURATION` without a request (0: until stopped)"},
					&cli.BoolFlag{Name: "shell", Usage: "end the session when the shell that ran this command exits"},
				},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					g, err := st.readGlobals(cmd)
					if err != nil {
						return err
					}
					o := sessionStart{name: cmd.String("name"), idle: cmd.Duration("idle"), shell: cmd.Bool("shell")}
					if o.idle < 0 {
						return usagef("", "--idle cannot be negative")
					}
					if o.server, err = soleTarget(g, cmd.Args().Slice()); err != nil {
						return err
					}
					if st.holder != nil {
						// The holder lives until its session ends: no --timeout.
						return st.runHolder(ctx, g, o)
					}
					ctx, cancel := g.withTimeout(ctx)
					defer cancel()
					return ctxErr(ctx, st.runSessionStart(ctx, g, o))
				},
			},
			{
				Name:  "list",
				Usage: "list the sessions",
				Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
					if cmd.Args().Len() > 0 {
						return usagef("", "unexpected argument %q", cmd.Args().First())
					}
					return st.runSessionList(ctx, g)
				}),
			},
			{
				Name:      "stop",
				Usage:     "stop sessions: their servers end",
				ArgsUsage: "NAME... | --all",
				Flags:     []cli.Flag{&cli.BoolFlag{Name: "all", Usage: "stop every session"}},
				Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
					names := cmd.Args().Slice()
					switch all := cmd.Bool("all"); {
					case all && len(names) > 0:
						return usagef("", "give session names or --all, not both")
					case !all && len(names) == 0:
						return usagef("name the sessions to stop, or give --all", "missing NAME")
					}
					return st.runSessionStop(ctx, g, names)
				}),
			},
			{
				Name:      "logs",
				Usage:     "print what a session's server wrote on stderr",
				ArgsUsage: "NAME",
				Description: `Prints the held server's stderr, kept in the session's private directory
(at most 1MiB and the 1MiB before it), stripped of terminal escapes, as
text. Only its last --max-bytes bytes are printed (--max-bytes 0: all).
A session that ended without being stopped keeps its log until it is
stopped or started again.`,
				Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
					if cmd.Args().Len() != 1 {
						return usagef("mcpc session logs NAME", "give one session's name")
					}
					return st.runSessionLogs(g, cmd.Args().First())
				}),
			},
		},
	}
}

type sessionStart struct {
	server, name string
	idle         time.Duration
	shell        bool // the session ends with the starter's parent
}

// sessions is the store of session records.
func (st *state) sessions(g *globals) *clientstate.Sessions {
	run := ""
	if d := st.env.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		run = filepath.Join(d, "mcpc")
	}
	return clientstate.NewSessions(g.dirs.State, run)
}

// sessionTarget resolves what session start holds, and its name.
func (st *state) sessionTarget(g *globals, o sessionStart) (*config.Entry, string, error) {
	entry, err := st.resolve(g, o.server)
	if err != nil {
		return nil, "", err
	}
	name := entry.Name
	switch {
	case o.name != "" && entry.File != nil:
		return nil, "", usagef("leave out --name: a configured server's session is named after it", "--name applies to a --stdio server only")
	case o.name != "":
		name = o.name
		if cfg, err := g.loadConfig(); err == nil && cfg.Servers[name] != nil {
			// A call naming it would mean the configured server.
			return nil, "", usagef("choose another --name", "%q is a configured server's name", name)
		}
	case entry.File == nil:
		return nil, "", usagef("mcpc session start --name NAME --stdio 'command args'", "a --stdio server's session needs --name NAME")
	}
	if name == "" || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) || len(name) > 200 {
		return nil, "", usagef("", "invalid session name %q", name)
	}
	return entry, name, nil
}

// entryIdentity says which entry a session was started for: a
// configured server's source and name (a changed definition is the same
// entry, changed), a --stdio server's command line.
func entryIdentity(e *config.Entry, name, cwd string) string {
	if e.File == nil {
		return clientstate.HashKey("stdio", name, client.SessionKey(e, cwd, ""))
	}
	return clientstate.HashKey("entry", e.SourceName(), name)
}

// sessionShown is what session start prints.
type sessionShown struct {
	Name      string `json:"name"`
	Server    string `json:"server"`
	Transport string `json:"transport"`
	Revision  string `json:"revision"`
	PID       int    `json:"pid"`
	Idle      string `json:"idle"`
	Shell     int    `json:"shell,omitempty"` // --shell: the process whose exit ends it
}

func shownSession(r *clientstate.SessionRecord) sessionShown {
	return sessionShown{Name: r.Name, Server: r.Server, Transport: r.Transport, Revision: r.Revision, PID: r.PID, Idle: r.Idle, Shell: r.Shell}
}

func (st *state) printSession(g *globals, r *clientstate.SessionRecord, what string) error {
	if g.mode == format.ModeText && g.query == "" {
		idle := "until stopped"
		if r.Idle != "0s" {
			idle = "ends after " + r.Idle + " idle"
		}
		if r.Shell != 0 {
			idle += fmt.Sprintf(" or when its shell (pid %d) exits", r.Shell)
		}
		return st.writeStdout(fmt.Appendf(nil, "session %s %s: %s (%s, %s), holder pid %d, %s\n",
			r.Name, what, r.Server, r.Transport, r.Revision, r.PID, idle))
	}
	return st.print(g, format.KindGeneric, shownSession(r))
}

// holderReport is what a holder tells the invocation that started it:
// its record once the server answered the handshake, or the failure.
type holderReport struct {
	Record *clientstate.SessionRecord `json:"record,omitempty"`
	Error  *reportedError             `json:"error,omitempty"`
}

type reportedError struct {
	Code    fail.Code `json:"code"`
	Message string    `json:"message"`
	Hint    string    `json:"hint,omitempty"`
}

// maxHolderReport bounds what the starter reads of its holder's report.
const maxHolderReport = 1 << 20

func (st *state) runSessionStart(ctx context.Context, g *globals, o sessionStart) error {
	entry, name, err := st.sessionTarget(g, o)
	if err != nil {
		return err
	}
	ss := st.sessions(g)
	// Under the lock: two starts of one session make one holder, and a
	// dead holder's socket is cleaned up by one of them.
	unlock, err := ss.Lock(ctx, name)
	if err != nil {
		return fmt.Errorf("cannot lock session %s: %w", name, err)
	}
	defer unlock()
	rec := ss.Read(name)
	alive := false
	if rec != nil && rec.Ended == "" {
		if alive, err = holderAlive(ctx, rec); err != nil {
			return err
		}
	}
	if alive {
		if rec.Entry != entryIdentity(entry, name, g.cwd) {
			return usagef("stop it first ('mcpc session stop "+shellwords.Quote(name)+"'), or choose another --name",
				"session %s is running and holds another target (%s)", name, rec.Server)
		}
		opts, err := st.connectOptions(ctx, g, entry)
		if err != nil {
			return err
		}
		if err := st.sameCredentials(g, entry, rec, opts); err != nil {
			return err
		}
		format.Note(st.env.Stderr, "session %s is already running", name)
		return st.printSession(g, rec, "already running")
	}
	ss.Remove(name)
	if _, err := ss.PrepareSocket(name); err != nil {
		return fmt.Errorf("cannot prepare the session's socket: %w", err)
	}
	rep, err := st.spawnHolder(ctx, g, st.argv, o)
	if err != nil {
		return err
	}
	if rep.Error != nil {
		return &fail.Error{Code: rep.Error.Code, Msg: rep.Error.Message, Hint: rep.Error.Hint}
	}
	if note := statelessNote(rep.Record); note != "" {
		format.Note(st.env.Stderr, "%s", note)
	}
	return st.printSession(g, rep.Record, "started")
}

// spawnHolder starts the holder of the session start args (whose options
// are o), detached, and waits for its report.
func (st *state) spawnHolder(ctx context.Context, g *globals, args []string, o sessionStart) (*holderReport, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find mcpc's own executable: %w", err)
	}
	hs := holderSpec{Args: args}
	if o.shell {
		// The shell is alive while it waits for this command, so the
		// holder finds it (and on Linux its start time) still there.
		ppid := os.Getppid()
		hs.Shell = &watched{PID: ppid, Start: transport.ProcessStart(ppid)}
	}
	spec, err := json.Marshal(hs)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, holderCommand)
	cmd.Dir = g.cwd
	cmd.Env = st.env.Environ()
	cmd.SysProcAttr = holderAttr()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start the session's holder: %w", err)
	}
	// The holder outlives this invocation: it is nobody's child to wait
	// for once it has reported.
	defer cmd.Process.Release()
	in.Write(spec)
	in.Close()
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(out, maxHolderReport))
		got <- b
	}()
	var b []byte
	select {
	case b = <-got:
	case <-ctx.Done():
		// The holder stops its server when it is told to end.
		stopHolder(cmd.Process)
		return nil, context.Cause(ctx)
	}
	var rep holderReport
	if err := json.Unmarshal(b, &rep); err != nil || rep.Record == nil && rep.Error == nil {
		stopHolder(cmd.Process)
		return nil, fail.New(fail.Internal, "", "the session's holder ended without saying why")
	}
	return &rep, nil
}

// holderSpec is what a holder reads on its stdin: the command line of
// the session start it serves, and with --shell the process whose exit
// ends the session (the starter's parent: a holder's own parent is the
// starter, which exits at once).
type holderSpec struct {
	Args  []string `json:"args"`
	Shell *watched `json:"shell,omitempty"`
}

// watched is a process a holder watches: its pid, and its start
// (transport.ProcessStart) so that a reused pid is not taken for it.
type watched struct {
	PID   int    `json:"pid"`
	Start string `json:"start"`
}

// holderOut is where a holder's report to its starter goes, and what
// else the starter told it.
type holderOut struct {
	io.Writer
	shell *watched
}

// Close closes what the report went to: the starter reads it to its end.
func (o *holderOut) Close() error {
	if c, ok := o.Writer.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// holderArgs reads a holder's command line from stdin (bounded), when
// args are the holder's: Main then runs that command line as the holder,
// its report going to what was stdout (returned).
func holderArgs(env *Env, args []string) ([]string, io.Writer, error) {
	if len(args) != 2 || args[1] != holderCommand {
		return args, nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(env.Stdin, maxHolderReport))
	var spec holderSpec
	if err == nil {
		err = json.Unmarshal(b, &spec)
	}
	if err != nil || len(spec.Args) < 2 {
		return nil, nil, usagef("", "%s is mcpc's own: it is started by mcpc session start", holderCommand)
	}
	out := &holderOut{Writer: env.Stdout, shell: spec.Shell}
	env.Stdout, env.Stdin, env.StdoutTTY = io.Discard, strings.NewReader(""), false
	return spec.Args, out, nil
}

// report tells the starter how the start went; it is written once. A
// failure is told with the holder's secrets redacted: the starter prints
// it on its stderr, whose redaction knows none of them (it reached no
// server, loaded no login).
func (st *state) reportToStarter(rep holderReport) {
	if e := rep.Error; e != nil {
		rep.Error = &reportedError{Code: e.Code, Message: st.secrets.String(e.Message), Hint: st.secrets.String(e.Hint)}
	}
	b, _ := json.Marshal(rep)
	st.holder.Write(b)
	if c, ok := st.holder.(io.Closer); ok {
		c.Close()
	}
}

// runHolder is the holder: it starts the server through the one-shot's
// connect, listens on the session's socket, reports to the starter and
// serves until the session ends.
func (st *state) runHolder(ctx context.Context, g *globals, o sessionStart) (err error) {
	reported := false
	defer func() {
		if err != nil && !reported {
			e := asFailure(err)
			st.reportToStarter(holderReport{Error: &reportedError{Code: e.Code, Message: e.Msg, Hint: e.Hint}})
		}
	}()
	entry, name, err := st.sessionTarget(g, o)
	if err != nil {
		return err
	}
	var shell *watched
	if ho, ok := st.holder.(*holderOut); ok {
		shell = ho.shell
	}
	if o.shell {
		if shell == nil {
			return fail.New(fail.Internal, "", "the holder was not told which shell it ends with")
		}
		// The shell's exit ends the session as SIGTERM would: the
		// server is stopped and the record removed.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		gone := transport.WatchProcess(ctx, shell.PID, shell.Start)
		go func() {
			<-gone
			cancel()
		}()
	}
	ss := st.sessions(g)
	if err := fsx.PrivateDir(ss.Dir(name)); err != nil {
		return err
	}
	logw, err := openSessionLog(ss.LogFile(name))
	if err != nil {
		return fmt.Errorf("cannot open the session's log: %w", err)
	}
	defer logw.Close()
	opts, err := st.connectOptions(ctx, g, entry)
	if err != nil {
		return err
	}
	// The log is shown by mcpc session logs: what the server was sent
	// from the environment (registered by connectOptions) is redacted
	// there, as on a one-shot's stderr.
	redw := redaction.NewWriter(logw, st.secrets)
	defer redw.Close()
	opts.ServerStderr, opts.Input = redw, client.HolderInput()
	sess, err := client.Connect(ctx, entry, opts)
	if err != nil {
		return err
	}
	defer sess.Close()
	h, err := client.NewHolder(sess)
	if errors.Is(err, client.ErrNotHeld) {
		// Holding one would take a second relay: the holder could not
		// tell a request's failure from its POST (always 202) nor post
		// beside the SDK to the endpoint its stream announced.
		hint := `use it without a session; if it also speaks Streamable HTTP, set "type": "http" on its entry`
		switch {
		case entry.File == nil:
			hint = "use it without a session; if it also speaks Streamable HTTP, pass --transport http"
		case entry.Server.KeepAlive > 0:
			hint = `remove "keepAlive" from its entry, or call it with --no-session; if it also speaks Streamable HTTP, set "type": "http" on its entry`
		}
		return usagef(hint, "%s speaks the HTTP+SSE transport (2024-11-05), which a session cannot hold: "+
			"its answers come only on the event stream of the connection that sent the request", sess.Label)
	}
	if err != nil {
		return err
	}
	h.Refused = func(err error) { format.Note(redw, "the session refused a connection: %v", err) }
	h.Log = func(msg string) { format.Note(redw, "%s", msg) }
	if holderWriteWait > 0 {
		h.WriteWait = holderWriteWait
	}
	ln, err := transport.ListenSocket(ss.Socket(name))
	if err != nil {
		return fmt.Errorf("cannot listen on the session's socket: %w", err)
	}
	defer ln.Close()
	creds, err := st.credentialParts(g, entry, opts)
	if err != nil {
		return err
	}
	rec := &clientstate.SessionRecord{
		Creds: creds, Name: name, Server: sessionServerName(entry), Transport: heldTransport(sess), Revision: sess.ProtocolVersion(),
		PID: os.Getpid(), HolderStart: transport.ProcessStart(os.Getpid()), ServerPID: h.ServerPID(), Idle: durationText(o.idle), Started: st.env.Now().UTC(),
		Key: client.SessionKey(entry, g.cwd, opts.CredentialID), Entry: entryIdentity(entry, name, g.cwd), Socket: ss.Socket(name),
		Def: client.SessionKey(entry, g.cwd, ""),
	}
	if shell != nil {
		rec.Shell = shell.PID
	}
	if err := ss.Write(rec); err != nil {
		return fmt.Errorf("cannot write the session's record: %w", err)
	}
	st.reportToStarter(holderReport{Record: rec})
	reported = true
	ended, _ := h.Serve(ctx, ln, o.idle)
	if ended != "" {
		// Said before the socket closes and the invocations attached are
		// let go: they, and any that finds the socket closed, name it.
		rec.Ended = ended
		ss.Write(rec)
	}
	ln.Close()
	h.Close()
	sess.Close()
	lctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if unlock, err := ss.Lock(lctx, name); err == nil {
		if cur := ss.Read(name); cur != nil && cur.PID == rec.PID {
			ss.RemoveSocket(name)
			if ended == "" {
				ss.Remove(name)
			}
		}
		unlock()
	}
	return nil
}

// heldTransport is how a session's record names what its holder speaks
// to the server.
func heldTransport(s *client.Session) string {
	if s.Entry.Server.URL == "" {
		return "stdio"
	}
	return "http"
}

// statelessNote is said of a session that holds a 2026-07-28 HTTP
// server: such a server keeps nothing between requests, so the session
// saves only the start-up (discovery, credentials, connections).
func statelessNote(r *clientstate.SessionRecord) string {
	if r.Transport != "http" || r.Revision < "2026-07-28" {
		return ""
	}
	return fmt.Sprintf("session %s holds a %s HTTP server, which keeps no state between requests: the session saves only start-up work", r.Name, r.Revision)
}

// sessionServerName is how a session names what it holds: a configured
// server's name, or "--stdio" for a command line (which may carry a
// secret, so it is not repeated).
func sessionServerName(e *config.Entry) string {
	if e.File != nil {
		return e.Name
	}
	return "--stdio"
}

// holderRunning reports whether rec's holder process runs: its pid is
// alive and, where the record knows the holder's start, the process
// started then. A killed holder's pid taken by another process is not
// waited for, signalled, or taken for a live session. A start that
// matches is a live process (ProcessStart is "" for one gone or exited),
// so /proc is read once.
func holderRunning(rec *clientstate.SessionRecord) bool {
	if rec.HolderStart != "" {
		return transport.ProcessStart(rec.PID) == rec.HolderStart
	}
	return processAlive(rec.PID)
}

// holderProbeWait bounds the answer to holderAlive's question. The
// holder answers it itself, at once, whatever its server is doing.
const holderProbeWait = 2 * time.Second

// holderAlive reports whether the holder of rec answers on its socket. A
// socket that takes the connection is not enough: a stopped (SIGSTOP) or
// hung holder's does too (the kernel's backlog). One that runs and gets
// no answer within holderProbeWait is an error (exit 6) that names it and
// how to end it: it must not be taken for a live session, nor have a
// second holder started beside it.
func holderAlive(ctx context.Context, rec *clientstate.SessionRecord) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, holderProbeWait)
	defer cancel()
	_, err := askHolder(ctx, rec, client.HolderStatus)
	switch {
	case err == nil:
		return true, nil
	case (errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded)) && holderRunning(rec):
		q := shellwords.Quote(rec.Name)
		return false, fail.New(fail.Timeout, "end it with 'mcpc session stop "+q+"' (its server ends with it), then start it again",
			"session %s's holder (pid %d) does not answer (stopped or hung)", rec.Name, rec.PID)
	}
	return false, nil
}

// askHolder sends the holder of rec one request of its own and returns
// the result.
func askHolder(ctx context.Context, rec *clientstate.SessionRecord, method string) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := transport.DialHolder(ctx, rec.Socket)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if d, ok := ctx.Deadline(); ok {
		s.SetDeadline(d)
	}
	id, _ := jsonrpc.MakeID("mcpc-session")
	data, _ := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id, Method: method, Params: json.RawMessage("{}")})
	if _, err := s.Write(append(data, '\n')); err != nil {
		return nil, err
	}
	r := transport.NewMessageReader(s, 1<<20)
	for {
		msgs, err := r.Read()
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			if resp, ok := m.(*jsonrpc.Response); ok && resp.ID == id {
				if resp.Error != nil {
					return nil, resp.Error
				}
				return resp.Result, nil
			}
		}
	}
}

// adhocSessionEntry is the entry that stands for a session started with
// --name and --stdio, when server names one (and no configured server
// does): such a session is reached by its name.
func (st *state) adhocSessionEntry(g *globals, server string) *config.Entry {
	if g.noSession || g.adhoc.IsStdio() || server == "" || config.IsURL(server) {
		return nil
	}
	if rec := st.sessions(g).Read(server); rec != nil && rec.Server == sessionServerName(&config.Entry{}) {
		st.adhocSession = &config.Entry{Name: server, Server: &config.Server{Command: "--stdio"}}
		return st.adhocSession
	}
	return nil
}

// heldSession is the live session of entry for an invocation to use,
// nil when there is none (or --no-session). A session that ended
// without being stopped is an error: its state is gone, and a fresh
// server behind the script's back would hide that.
func (st *state) heldSession(ctx context.Context, g *globals, entry *config.Entry, opts client.ConnectOptions) (*client.Held, error) {
	if g.noSession {
		return nil, nil
	}
	rec, _, err := st.keepAlive(ctx, g, entry, false)
	if err != nil {
		return nil, err
	}
	ss := st.sessions(g)
	if rec == nil {
		rec = ss.Read(entry.Name)
	}
	if rec == nil {
		return nil, nil
	}
	if entry != st.adhocSession && rec.Entry != entryIdentity(entry, entry.Name, g.cwd) {
		// Another entry of the name (another file's, a --stdio server's)
		// is another target: said, since a script that meant the session
		// would otherwise lose its state without a word.
		if rec.Ended == "" && holderRunning(rec) {
			format.Note(st.env.Stderr, "session %s holds another server of that name (another config file's or directory's, or a --stdio command): this invocation starts its own", rec.Name)
		}
		return nil, nil
	}
	if entry != st.adhocSession {
		if err := st.sameCredentials(g, entry, rec, opts); err != nil {
			return nil, err
		}
	}
	if rec.Ended != "" {
		return nil, client.SessionEnded(rec.Name, rec.Ended, nil)
	}
	if entry != st.adhocSession && rec.Key != client.SessionKey(entry, g.cwd, opts.CredentialID) {
		format.Note(st.env.Stderr, "session %s runs the definition of %q it was started with; to use the changed one, stop the session and start it again", rec.Name, entry.Name)
	}
	name := rec.Name
	return &client.Held{Name: name, Socket: rec.Socket, Revision: rec.Revision, Key: rec.Key,
		Ended: func() string { return st.sessionEnded(g, ss, name) }}, nil
}

// credentialParts is client.CredentialParts of entry as this invocation
// reaches it; nil for a --stdio server (its command line is its
// identity, and it has no "env").
func (st *state) credentialParts(g *globals, entry *config.Entry, opts client.ConnectOptions) (map[string]string, error) {
	if entry.File == nil {
		return nil, nil
	}
	return client.CredentialParts(entry, g.cwd, opts.CredentialID, st.env.Getenv, opts.Memo)
}

// sameCredentials refuses an invocation whose credentials are not those
// rec's holder reached its server with: another token never reaches a
// session, which would act with the token it started with.
func (st *state) sameCredentials(g *globals, entry *config.Entry, rec *clientstate.SessionRecord, opts client.ConnectOptions) error {
	parts, err := st.credentialParts(g, entry, opts)
	if err != nil {
		return err
	}
	var differ []string
	for k, v := range parts {
		if rec.Creds[k] != v {
			differ = append(differ, k)
		}
	}
	for k := range rec.Creds {
		if _, ok := parts[k]; !ok {
			differ = append(differ, k)
		}
	}
	if len(differ) == 0 {
		return nil
	}
	slices.Sort(differ)
	q := shellwords.Quote(rec.Name)
	return fail.New(fail.Config, "to use this invocation's, stop the session ('mcpc session stop "+q+"') and start it again; --no-session starts a server for this invocation alone",
		"session %s holds its server with other credentials than this invocation's (%s differ)", rec.Name, strings.Join(differ, ", "))
}

// sessionEnded says why a session whose holder went away ended. A
// holder killed outright said nothing and left its socket: that is
// found, said in its record and the socket removed, under the lock.
func (st *state) sessionEnded(g *globals, ss *clientstate.Sessions, name string) string {
	rec := ss.Read(name)
	switch {
	case rec == nil:
		return "it was stopped"
	case rec.Ended != "":
		return rec.Ended
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	unlock, err := ss.Lock(ctx, name)
	if err != nil {
		return ""
	}
	defer unlock()
	if rec = ss.Read(name); rec == nil {
		return "it was stopped"
	}
	if alive, _ := holderAlive(ctx, rec); rec.Ended != "" || alive {
		return rec.Ended
	}
	if holderRunning(rec) {
		return "" // ending on its own: it says why
	}
	rec.Ended = holderKilled(rec.PID)
	ss.Write(rec)
	ss.RemoveSocket(name)
	return rec.Ended
}

// sessionListed is one line of mcpc session list.
type sessionListed struct {
	sessionShown
	Status   string `json:"status"` // running, stale, ended, gone
	Ended    string `json:"ended,omitempty"`
	Age      string `json:"age"`
	IdleLeft string `json:"idleLeft,omitempty"`
	Requests int64  `json:"requests"` // passed on to the server
	// Memory is the holder's resident memory in bytes (Linux; absent
	// elsewhere), its server's not counted.
	Memory int64 `json:"memory,omitempty"`
}

// entryChanged reports whether the configured entry rec holds was
// changed since the session started: it runs the older definition.
// loadConfig is g.loadConfig, once for every session listed.
func entryChanged(g *globals, loadConfig func() (*config.Config, error), rec *clientstate.SessionRecord) bool {
	if rec.Def == "" || rec.Server == sessionServerName(&config.Entry{}) {
		return false // a --stdio server is its command line: never changed
	}
	cfg, err := loadConfig()
	if err != nil {
		return false
	}
	e, err := cfg.Resolve(rec.Server, g.adhoc)
	if err != nil || entryIdentity(e, rec.Name, g.cwd) != rec.Entry {
		return false // not the entry it started for, seen from here
	}
	return client.SessionKey(e, g.cwd, "") != rec.Def
}

func (st *state) runSessionList(ctx context.Context, g *globals) error {
	ss := st.sessions(g)
	out := []sessionListed{}
	loadConfig := sync.OnceValues(g.loadConfig)
	for _, rec := range ss.List() {
		l := sessionListed{sessionShown: shownSession(rec), Status: "running", Ended: rec.Ended,
			Age: st.env.Now().Sub(rec.Started).Round(time.Second).String()}
		if rec.Ended != "" {
			l.Status = "ended"
		} else if res, err := askHolder(ctx, rec, client.HolderStatus); err == nil {
			var s client.HolderStatusResult
			json.Unmarshal(res, &s)
			l.Requests, l.IdleLeft, l.Memory = s.Requests, s.IdleLeft, transport.ProcessRSS(rec.PID)
			if entryChanged(g, loadConfig, rec) {
				l.Status = "stale"
			}
			if note := statelessNote(rec); note != "" {
				format.Note(st.env.Stderr, "%s", note)
			}
		} else {
			l.Status = "gone"
		}
		out = append(out, l)
	}
	if g.mode == format.ModeText && g.query == "" {
		if len(out) == 0 {
			format.Note(st.env.Stderr, "no sessions")
			return nil
		}
		var b strings.Builder
		for _, l := range out {
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\tpid %d\tage %s\trequests %d", l.Name, l.Status, l.Server, l.Revision, l.PID, l.Age, l.Requests)
			if l.IdleLeft != "" {
				fmt.Fprintf(&b, "\tidle left %s", l.IdleLeft)
			}
			if l.Memory > 0 {
				fmt.Fprintf(&b, "\tmemory %.1fMiB", float64(l.Memory)/(1<<20))
			}
			if l.Ended != "" {
				fmt.Fprintf(&b, "\tended: %s", format.OneLine(l.Ended))
			}
			b.WriteByte('\n')
		}
		return st.writeStdout([]byte(b.String()))
	}
	return st.print(g, format.KindGeneric, out)
}

func (st *state) runSessionStop(ctx context.Context, g *globals, names []string) error {
	ss := st.sessions(g)
	if len(names) == 0 {
		for _, r := range ss.List() {
			names = append(names, r.Name)
		}
		if len(names) == 0 {
			format.Note(st.env.Stderr, "no session is running: nothing to stop")
			return nil
		}
	}
	for _, name := range names {
		if err := st.stopSession(ctx, ss, name); err != nil {
			return err
		}
	}
	return nil
}

// stopSession ends one session and returns once its holder, and so its
// server, is gone.
func (st *state) stopSession(ctx context.Context, ss *clientstate.Sessions, name string) error {
	rec := ss.Read(name)
	if rec == nil {
		format.Note(st.env.Stderr, "no session %s is running: nothing to stop", name)
		return nil
	}
	if rec.Ended == "" {
		if _, err := askHolder(ctx, rec, client.HolderStop); err == nil {
			// The holder stops its server, then removes its record.
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if ss.Read(name) == nil && !holderRunning(rec) {
					return nil
				}
				if ctx.Err() != nil {
					return ctx.Err()
				}
			}
			return fail.New(fail.Timeout, fmt.Sprintf("its holder is pid %d", rec.PID), "session %s did not end within 30s", name)
		}
	}
	// A session that ended on its own may still have its holder winding
	// down (tearing down its server's group, saying why in the record):
	// stop returns only once it is gone, as for a live one, so that
	// nothing of the session outlives the stop. The pid is not signalled:
	// after a long wait it may be another process's.
	if err := waitGone(ctx, rec, 10*time.Second); err != nil {
		return err
	}
	// Still running: the holder neither answered nor ended (hung,
	// stopped). Forgetting it would leave it and its server running for
	// good, so it is killed, its server with it (parent-death signal), once
	// its start time shows the pid is still the holder's; without that
	// proof nothing is signalled and the stop fails.
	hung := holderRunning(rec)
	if hung {
		if rec.HolderStart == "" {
			return fail.New(fail.Timeout, fmt.Sprintf("if pid %d is still mcpc's holder, end it with 'kill %d', then run this again", rec.PID, rec.PID),
				"session %s's holder (pid %d) does not answer and has not ended", name, rec.PID)
		}
		killHolder(rec.PID)
		if err := waitGone(ctx, rec, 10*time.Second); err != nil {
			return err
		}
		if holderRunning(rec) {
			return fail.New(fail.Timeout, fmt.Sprintf("its holder is pid %d", rec.PID), "session %s's holder did not end when killed", name)
		}
	}
	unlock, err := ss.Lock(ctx, name)
	if err != nil {
		return fmt.Errorf("cannot lock session %s: %w", name, err)
	}
	defer unlock()
	if rec = ss.Read(name); rec == nil {
		return nil
	}
	why := rec.Ended
	if why == "" {
		why = fmt.Sprintf("its holder (pid %d) was gone", rec.PID)
	}
	ss.RemoveSocket(name)
	ss.Remove(name)
	if hung {
		format.Note(st.env.Stderr, "session %s's holder (pid %d) did not answer: it was killed, and its server with it", name, rec.PID)
		return nil
	}
	format.Note(st.env.Stderr, "session %s had already ended (%s): forgotten", name, format.OneLine(why))
	return nil
}

// waitGone waits up to d for rec's holder to end.
func waitGone(ctx context.Context, rec *clientstate.SessionRecord, d time.Duration) error {
	for deadline := time.Now().Add(d); holderRunning(rec) && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// sessionLogLimit bounds a session's server log: past it the log is
// moved aside (one older file kept) and begun again.
const sessionLogLimit = 1 << 20

// sessionLog is a held server's stderr, kept bounded in the session's
// private directory.
type sessionLog struct {
	mu   sync.Mutex
	path string
	f    *os.File
	n    int64
}

func openSessionLog(path string) (*sessionLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	return &sessionLog{path: path, f: f}, nil
}

func (l *sessionLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return len(p), nil
	}
	// An empty file is not moved aside: that would drop the older one
	// for nothing.
	if l.n > 0 && l.n+int64(len(p)) > sessionLogLimit {
		l.f.Close()
		os.Rename(l.path, l.path+".1")
		f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			l.f = nil
			return len(p), nil
		}
		l.f, l.n = f, 0
	}
	n, err := l.f.Write(p)
	l.n += int64(n)
	return n, err
}

func (l *sessionLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// runSessionLogs prints the end of session name's server log: the
// older file first, then the current one, the whole cut to its last
// --max-bytes at a line's start.
func (st *state) runSessionLogs(g *globals, name string) error {
	ss := st.sessions(g)
	if ss.Read(name) == nil {
		var names []string
		for _, r := range ss.List() {
			names = append(names, r.Name)
		}
		hint := "no session is running; start one with 'mcpc session start SERVER'"
		if len(names) > 0 {
			hint = "sessions: " + strings.Join(names, ", ")
			if c := config.Closest(name, names); c != "" {
				hint = fmt.Sprintf("did you mean %q? ", c) + hint
			}
		}
		return fail.New(fail.Config, hint, "no session %s", name)
	}
	var log []byte
	for _, path := range []string{ss.LogFile(name) + ".1", ss.LogFile(name)} {
		// A file can pass the bound by what one write brought.
		b, err := fsx.ReadFileNoFollow(path, 2*sessionLogLimit)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot read session %s's log: %w", name, err)
		}
		log = append(log, b...)
	}
	if cut := len(log) - g.maxBytes; cut > 0 {
		log = log[cut:]
		if i := bytes.IndexByte(log, '\n'); i >= 0 && i < len(log)-1 {
			cut, log = cut+i+1, log[i+1:]
		}
		format.Note(st.env.Stderr, "the log's first %d bytes are left out (--max-bytes %d); --max-bytes 0 prints all of it", cut, g.maxBytes)
	}
	return st.writeStdout([]byte(format.StripControl(string(log))))
}

// sessionHolds reports whether a live session holds the configured
// server name (mcpc list shows it): one whose holder runs and that was
// started for this entry.
func (st *state) sessionHolds(g *globals, cfg *config.Config, name string) bool {
	rec := st.sessions(g).Read(name)
	if rec == nil || rec.Ended != "" || !holderRunning(rec) {
		return false
	}
	e, err := cfg.Resolve(name, g.adhoc)
	return err == nil && entryIdentity(e, name, g.cwd) == rec.Entry
}
